# dbarena in a container: the loader service of the Compose and
# Kubernetes deployments. Multi-arch: docker buildx build --platform
# linux/amd64,linux/arm64 -t dbarena:local .
FROM --platform=$BUILDPLATFORM golang:1.26-bookworm AS build
ARG TARGETOS
ARG TARGETARCH
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Static, so the runtime image needs no C library; cross-compiled for the
# target platform on the build platform.
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags="-s -w" -o /out/dbarena ./cmd/dbarena

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/dbarena /usr/local/bin/dbarena
COPY workloads /workloads
USER nonroot:nonroot
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/dbarena"]
CMD ["--help"]

# dbarena in a container: the loader service of the Compose and
# Kubernetes deployments. Multi-arch: docker buildx build --platform
# linux/amd64,linux/arm64 --build-arg COMMIT=$(git rev-parse HEAD) -t dbarena:local .
# COMMIT names the commit in `dbarena version` and every manifest: the
# build context has no .git for the toolchain to read it from.
FROM --platform=$BUILDPLATFORM golang:1.26-bookworm AS build
ARG TARGETOS
ARG TARGETARCH
ARG COMMIT=""
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Static, so the runtime image needs no C library; cross-compiled for the
# target platform on the build platform.
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath \
	-ldflags="-s -w -X github.com/dbarena/dbarena/cmd/dbarena/cli.stampedCommit=${COMMIT}" -o /out/dbarena ./cmd/dbarena

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/dbarena /usr/local/bin/dbarena
COPY workloads /workloads
USER nonroot:nonroot
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/dbarena"]
CMD ["--help"]

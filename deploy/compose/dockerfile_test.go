package compose_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDockerfile checks the loader image's Dockerfile statically (no
// Docker engine runs here): multi-stage, cross-compiled for the target
// platform, static, pinned bases, a non-root user.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("../../Dockerfile")
	require.NoError(t, err)
	df := string(b)
	froms := regexp.MustCompile(`(?m)^FROM\s+(?:--platform=\S+\s+)?(\S+)`).FindAllStringSubmatch(df, -1)
	require.Len(t, froms, 2, "a build stage and a runtime stage")
	for _, f := range froms {
		require.Contains(t, f[1], ":", "base %s is pinned to a tag", f[1])
		require.NotContains(t, f[1], ":latest", "base %s", f[1])
	}
	require.Contains(t, df, "FROM --platform=$BUILDPLATFORM", "builds natively and cross-compiles")
	require.Contains(t, df, "GOOS=$TARGETOS GOARCH=$TARGETARCH")
	require.Contains(t, df, "CGO_ENABLED=0")
	require.Regexp(t, `(?m)^USER\s+nonroot`, df)
	require.Regexp(t, `(?m)^ENTRYPOINT \["/usr/local/bin/dbarena"\]`, df)
	for _, line := range strings.Split(df, "\n") {
		if strings.HasPrefix(line, "COPY ") {
			src := strings.Fields(line)[1]
			if !strings.HasPrefix(src, "--") && src != "." {
				_, err := os.Stat("../../" + src)
				require.NoError(t, err, "COPY %s: the file must exist", src)
			}
		}
	}
	ignore, err := os.ReadFile("../../.dockerignore")
	require.NoError(t, err)
	require.Contains(t, string(ignore), ".git")
}

package compose_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/compose"
)

func TestCheckWithoutDocker(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := compose.Provider{}.Check(deploy.Request{Name: "r", Database: "redis"})
	require.ErrorContains(t, err, "neither `docker compose`")
	require.ErrorContains(t, err, "dbarena deploy render")
}

// TestCheckComposeVersion refuses Compose v1 (no up --wait) and accepts
// the plugin of v2.
func TestCheckComposeVersion(t *testing.T) {
	dir := t.TempDir()
	v1 := filepath.Join(dir, "docker-compose")
	require.NoError(t, os.WriteFile(v1, []byte("#!/bin/sh\necho 'docker-compose version 1.29.2, build 5becea4c'\n"), 0o755))
	err := compose.Provider{Docker: v1}.Check(deploy.Request{Name: "r", Database: "redis"})
	require.ErrorContains(t, err, "is version 1.29: dbarena needs Compose 2.1 or later")

	v2 := filepath.Join(dir, "docker")
	require.NoError(t, os.WriteFile(v2, []byte("#!/bin/sh\necho 'Docker Compose version v2.29.1'\n"), 0o755))
	require.NoError(t, compose.Provider{Docker: v2}.Check(deploy.Request{Name: "r", Database: "redis"}))
}

package testenv

import (
	"os"
	"testing"
)

// Docker points the test at the private Docker Engine that scripts/docker
// started: DOCKER_HOST names its socket and DOCKER_CONFIG a client
// configuration holding the Compose plugin built there, for the test and
// the programs it starts. It ends the test through Missing when
// DBARENA_TEST_DOCKER is unset. The test command runs these tests in a
// step of their own, with the engine up only for them.
func Docker(t testing.TB) {
	t.Helper()
	host := os.Getenv("DBARENA_TEST_DOCKER")
	config := os.Getenv("DOCKER_CONFIG")
	if host == "" || config == "" {
		Missing(t, "DBARENA_TEST_DOCKER or DOCKER_CONFIG is not set: start an engine with scripts/docker (or run scripts/test)")
		return
	}
	t.Setenv("DOCKER_HOST", host)
	t.Setenv("DOCKER_CONFIG", config)
}

package drivertest

import (
	"os"
	"testing"
)

// Address returns the server address held in the environment variable
// name (DBARENA_TEST_POSTGRES, ...), which scripts/test sets after starting
// the server. When it is unset the test is skipped on a developer's machine
// but fails under CI=true, so a server that did not start can never hide a
// suite.
func Address(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v != "" {
		return v
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not set and CI=true: the test command must start this server", name)
	}
	t.Skipf("%s is not set: start the server with scripts/servers (or run ./scripts/test)", name)
	return ""
}

// Package testenv decides what a test does when the machine lacks what it
// needs (a server's address, a program, root): it skips on a developer's
// machine and fails under CI=true, where the test command (scripts/test)
// installs and starts everything, so that a broken install step cannot
// hide behind a skipped suite. (pgx's conn_test.go skips on a missing
// server; we make it a failure in CI.)
//
// It imports nothing of the project, so any package's tests can use it.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// CI reports whether the tests run under CI=true.
func CI() bool { return os.Getenv("CI") == "true" }

// Missing ends the test for want of what why describes ("DBARENA_TEST_REDIS
// is not set: ..."): a skip on a developer's machine, a failure under
// CI=true.
func Missing(t testing.TB, why string) {
	t.Helper()
	if CI() {
		t.Fatalf("%s; CI=true forbids skipping: the test command must provide it", why)
	}
	t.Skip(why)
}

// Addr returns the server address held in the environment variable name
// (DBARENA_TEST_POSTGRES, ...), which scripts/servers exports after
// starting the server, or ends the test through Missing.
func Addr(t testing.TB, name string) string {
	t.Helper()
	if v := os.Getenv(name); v != "" {
		return v
	}
	Missing(t, name+" is not set: start the server with scripts/servers (or run scripts/test)")
	return ""
}

// Program returns the path of program, found in PATH or, given as an
// absolute path, where it says; or ends the test through Missing.
func Program(t testing.TB, program string) string {
	t.Helper()
	if filepath.IsAbs(program) {
		if _, err := os.Stat(program); err == nil {
			return program
		}
	} else if p, err := exec.LookPath(program); err == nil {
		return p
	}
	Missing(t, program+" is not installed")
	return ""
}

// Root ends the test through Missing unless it runs as root; what names
// what needs root ("real cgroup tests").
func Root(t testing.TB, what string) {
	t.Helper()
	if os.Geteuid() != 0 {
		Missing(t, what+" need root")
	}
}

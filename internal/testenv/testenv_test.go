package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// outcome runs f against a recording testing.TB and says how it ended.
func outcome(f func(t testing.TB)) (string, string) {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
		r.result = "passed"
	}()
	<-done
	return r.result, r.msg
}

// recorder is a testing.TB whose Skip and Fatal end the goroutine, as the
// real ones do, and remember the outcome.
type recorder struct {
	testing.TB
	result, msg string
}

func (r *recorder) Helper() {}

func (r *recorder) Skip(args ...any) {
	r.result, r.msg = "skipped", args[0].(string)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.result, r.msg = "failed", fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestAddr(t *testing.T) {
	const name = "DBARENA_TESTENV_ADDR"
	for _, c := range []struct {
		name, value, ci, want string
	}{
		{"set", "127.0.0.1:1", "true", "passed"},
		{"unset on a laptop", "", "", "skipped"},
		{"unset under CI", "", "true", "failed"},
		{"unset, CI not exactly true", "", "1", "skipped"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(name, c.value)
			t.Setenv("CI", c.ci)
			var got string
			result, msg := outcome(func(tb testing.TB) { got = Addr(tb, name) })
			require.Equal(t, c.want, result, msg)
			if c.want == "passed" {
				require.Equal(t, c.value, got)
			} else {
				require.Contains(t, msg, name, "the message names the variable")
			}
		})
	}
}

func TestProgram(t *testing.T) {
	t.Setenv("CI", "")
	self, err := os.Executable()
	require.NoError(t, err)
	var got string
	result, _ := outcome(func(tb testing.TB) { got = Program(tb, self) })
	require.Equal(t, "passed", result)
	require.Equal(t, self, got)

	t.Setenv("PATH", t.TempDir())
	result, _ = outcome(func(tb testing.TB) { Program(tb, "dbarena-no-such-program") })
	require.Equal(t, "skipped", result)
	result, _ = outcome(func(tb testing.TB) { Program(tb, filepath.Join(t.TempDir(), "none")) })
	require.Equal(t, "skipped", result)
	t.Setenv("CI", "true")
	result, _ = outcome(func(tb testing.TB) { Program(tb, "dbarena-no-such-program") })
	require.Equal(t, "failed", result)
}

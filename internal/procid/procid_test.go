package procid

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestAlive(t *testing.T) {
	self, err := Self()
	require.NoError(t, err)
	require.Equal(t, os.Getpid(), self.PID)
	require.NotZero(t, self.Start)
	require.NotEmpty(t, self.Boot)

	gone := exec.Command("true")
	require.NoError(t, gone.Run())

	for _, tc := range []struct {
		name string
		id   ID
		want bool
	}{
		{"this process", self, true},
		{"pid only", ID{PID: self.PID}, true},
		{"pid reused by another process", ID{PID: self.PID, Start: self.Start + 1, Boot: self.Boot}, false},
		{"another boot", ID{PID: self.PID, Start: self.Start, Boot: "not-this-boot"}, false},
		{"exited", ID{PID: gone.Process.Pid, Start: 1}, false},
		{"no pid", ID{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.id.Alive())
		})
	}
}

func TestStartTimeOfOddCommandName(t *testing.T) {
	// A command name with spaces and parentheses must not shift the
	// fields: the start time is counted from the last ')'.
	dir := t.TempDir()
	odd := dir + "/a b) (c"
	require.NoError(t, os.Symlink("/bin/sleep", odd))
	cmd := exec.Command(odd, "10")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	id, err := Of(cmd.Process.Pid)
	require.NoError(t, err)
	self, err := Self()
	require.NoError(t, err)
	require.GreaterOrEqual(t, id.Start, self.Start, "started after this test process")
	require.True(t, id.Alive())
	require.NoError(t, cmd.Process.Kill())
	require.Eventually(t, func() bool { return !id.Alive() }, 5*time.Second, 10*time.Millisecond,
		"a killed process not reaped yet (a zombie) runs no more")
	_ = cmd.Wait()
	require.False(t, id.Alive())
}

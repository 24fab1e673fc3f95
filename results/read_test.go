package results

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/procid"
)

// TestRunningStatusSettles reads a "running" manifest as interrupted when
// its writer is gone, also when its PID now belongs to another process.
func TestRunningStatusSettles(t *testing.T) {
	host, err := os.Hostname()
	require.NoError(t, err)
	self, err := procid.Self()
	require.NoError(t, err)
	gone := exec.Command("true")
	require.NoError(t, gone.Run())

	for _, tc := range []struct {
		name string
		m    Manifest
		want string
	}{
		{"writer alive", Manifest{PID: self.PID, PIDStart: self.Start, BootID: self.Boot}, StatusRunning},
		{"writer alive, older manifest without start time", Manifest{PID: self.PID}, StatusRunning},
		{"writer gone", Manifest{PID: gone.Process.Pid}, StatusInterrupted},
		{"PID reused by another process", Manifest{PID: self.PID, PIDStart: self.Start + 1, BootID: self.Boot}, StatusInterrupted},
		{"machine rebooted since", Manifest{PID: self.PID, PIDStart: self.Start, BootID: "another-boot"}, StatusInterrupted},
		{"another machine's run", Manifest{PID: gone.Process.Pid, Loader: Host{Hostname: host + "-other"}}, StatusRunning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			w, err := Create(dir)
			require.NoError(t, err)
			m := tc.m
			m.Status = StatusRunning
			if m.Loader.Hostname == "" {
				m.Loader.Hostname = host
			}
			require.NoError(t, w.WriteManifest(&m))
			require.NoError(t, w.Close())
			d, err := Read(dir)
			require.NoError(t, err)
			require.Equal(t, tc.want, d.Manifest.Status)
		})
	}
}

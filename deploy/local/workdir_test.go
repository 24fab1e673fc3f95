package local

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/internal/procid"
	"github.com/dbarena/dbarena/internal/workdir"
)

// TestUpCleansWhatDeadRunsLeft: a deployment lives under ROOT/local with
// an owner file naming this process and its server, and Up first removes
// what a dead run left (killing its surviving server), never a live
// run's directory.
func TestUpCleansWhatDeadRunsLeft(t *testing.T) {
	requireProgram(t, "redis-server")
	root := workDir(t)

	live, err := workdir.Claim(root, workdir.Local, "live", false)
	require.NoError(t, err)
	// A dead run: its owner's PID now names this test process (another
	// start time), and its server, a stand-in without a parent-death
	// signal, still runs.
	server := exec.Command("sleep", "600")
	server.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, server.Start())
	t.Cleanup(func() { _ = server.Process.Kill(); _ = server.Wait() })
	serverID, err := procid.Of(server.Process.Pid)
	require.NoError(t, err)
	self, err := procid.Self()
	require.NoError(t, err)
	dead := self
	dead.Start++
	deadDir := filepath.Join(root, workdir.Local, "1-redis-0badc0de")
	require.NoError(t, os.MkdirAll(filepath.Join(deadDir, "redis"), 0o755))
	owner, err := json.Marshal(workdir.Owner{Process: dead, Name: "redis", Servers: []workdir.Server{{Name: "redis", Process: serverID}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(deadDir, workdir.OwnerFile), owner, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(deadDir, "redis", "dump"), make([]byte, 1<<20), 0o644))

	d, err := New().Up(context.Background(), deploy.Request{Name: "r", Database: "redis", WorkDir: root})
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Down(context.Background()) })

	require.NoDirExists(t, deadDir, "the dead run's directory is removed at deploy time")
	require.False(t, serverID.Alive(), "the server that outlived its run is killed")
	require.DirExists(t, live.Path, "a live run's directory is left alone")

	dataDir := d.Hosts()[0].DataDir
	dir := filepath.Dir(dataDir)
	require.Equal(t, filepath.Join(root, workdir.Local), filepath.Dir(dir))
	require.Regexp(t, `^`+strconv.Itoa(os.Getpid())+`-r-[0-9a-f]{8}$`, filepath.Base(dir))
	var o workdir.Owner
	b, err := os.ReadFile(filepath.Join(dir, workdir.OwnerFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &o))
	require.Equal(t, self, o.Process)
	require.Len(t, o.Servers, 1)
	require.Equal(t, d.Hosts()[0].PID, o.Servers[0].Process.PID, "the server is recorded for a later cleaning")

	entries, err := workdir.Scan(root)
	require.NoError(t, err)
	require.Len(t, entries, 2)
	for _, e := range entries {
		require.Equal(t, workdir.Live, e.State, e.Path)
	}
	require.NoError(t, d.Down(context.Background()))
	require.NoDirExists(t, dir, "teardown removes the deployment's directory")
}

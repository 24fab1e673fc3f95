package workdir

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/procid"
)

func TestRoot(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvVar {
				return v
			}
			return ""
		}
	}
	t.Setenv("TMPDIR", "/var/tmp/x")
	for _, tc := range []struct {
		name   string
		flag   string
		getenv func(string) string
		want   string
	}{
		{"default", "", env(""), "/var/tmp/x/dbarena"},
		{"no environment", "", nil, "/var/tmp/x/dbarena"},
		{"environment", "", env("/srv/work"), "/srv/work"},
		{"flag over environment", "/data/w", env("/srv/work"), "/data/w"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Root(tc.flag, tc.getenv))
		})
	}
}

func TestClaim(t *testing.T) {
	root := t.TempDir()
	d, err := Claim(root, Local, "pg/1", false)
	require.NoError(t, err)
	require.Regexp(t, `^`+strconv.Itoa(os.Getpid())+`-pg_1-[0-9a-f]{8}$`, filepath.Base(d.Path))
	require.Equal(t, filepath.Join(root, Local), filepath.Dir(d.Path))
	fi, err := os.Stat(d.Path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
	fi, err = os.Stat(filepath.Join(root, Local))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o755), fi.Mode().Perm(), "servers that drop root pass through it")

	sleep := startSleep(t)
	require.NoError(t, d.AddServer("pg", sleep.Process.Pid))
	o, err := readOwner(d.Path)
	require.NoError(t, err)
	self, err := procid.Self()
	require.NoError(t, err)
	require.Equal(t, self, o.Process)
	require.Equal(t, "pg/1", o.Name)
	require.Len(t, o.Servers, 1)
	require.Equal(t, sleep.Process.Pid, o.Servers[0].Process.PID)
	require.NotZero(t, o.Servers[0].Process.Start)

	entries, err := Scan(root)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.Equal(t, Live, entries[0].State)

	require.NoError(t, d.Remove())
	require.NoDirExists(t, d.Path)
}

// startSleep starts a process that stands for a server: in a process
// group of its own, and without a parent-death signal, as a server that
// outlived its dead owner would be.
func startSleep(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// fakeDir writes a directory under root/kind owned by o, with size bytes
// of data.
func fakeDir(t *testing.T, root, kind, name string, o *Owner, size int) string {
	t.Helper()
	dir := filepath.Join(root, kind, name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	if o != nil {
		require.NoError(t, writeOwner(dir, o))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data"), make([]byte, size), 0o644))
	return dir
}

func TestClean(t *testing.T) {
	root := t.TempDir()
	self, err := procid.Self()
	require.NoError(t, err)
	// A dead owner: this PID, but another start time (the PID was reused).
	dead := self
	dead.Start++
	survivor := startSleep(t)
	server, err := procid.Of(survivor.Process.Pid)
	require.NoError(t, err)
	// A server of a dead run whose PID another process has since: left alone.
	reused := self
	reused.Start++

	live, err := Claim(root, Local, "live", false)
	require.NoError(t, err)
	deadDir := fakeDir(t, root, Local, "1-pg-dead", &Owner{Process: dead, Name: "pg",
		Servers: []Server{{Name: "pg", Process: server}, {Name: "other", Process: reused}}}, 1<<20)
	keptDir := fakeDir(t, root, Local, "2-redis-kept", &Owner{Process: dead, Name: "redis", Keep: true}, 4096)
	loadersDir := fakeDir(t, root, Loaders, "3-trial-dead", &Owner{Process: dead, Name: "trial"}, 10)
	unknownDir := fakeDir(t, root, Local, "dbarena-pg-old", nil, 10)
	claiming := fakeDir(t, root, Local, ".claim-123", nil, 10)

	byPath := func(es []Entry) map[string]Entry {
		m := map[string]Entry{}
		for _, e := range es {
			m[e.Path] = e
		}
		return m
	}

	// A dry run says what it would do and does nothing.
	es, err := Clean(root, CleanOptions{DryRun: true})
	require.NoError(t, err)
	m := byPath(es)
	require.Len(t, m, 5, "the hidden claim is not listed")
	require.Equal(t, Live, m[live.Path].State)
	require.False(t, m[live.Path].Removed)
	require.Equal(t, Dead, m[deadDir].State)
	require.True(t, m[deadDir].Removed, "would remove")
	require.GreaterOrEqual(t, m[deadDir].Bytes, int64(1<<20))
	require.Len(t, m[deadDir].Killed, 1, "would kill the surviving server only")
	require.Equal(t, Kept, m[keptDir].State)
	require.False(t, m[keptDir].Removed)
	require.Equal(t, Dead, m[loadersDir].State)
	require.Equal(t, Unknown, m[unknownDir].State)
	for _, p := range []string{live.Path, deadDir, keptDir, loadersDir, unknownDir, claiming} {
		require.DirExists(t, p)
	}
	require.True(t, server.Alive())

	es, err = Clean(root, CleanOptions{})
	require.NoError(t, err)
	m = byPath(es)
	require.NoDirExists(t, deadDir)
	require.NoDirExists(t, loadersDir)
	require.True(t, m[deadDir].Removed)
	require.Equal(t, []Server{{Name: "pg", Process: server}}, m[deadDir].Killed)
	require.False(t, server.Alive(), "the server that outlived its owner is killed")
	require.True(t, self.Alive(), "a process that took a dead server's PID is left alone")
	for _, p := range []string{live.Path, keptDir, unknownDir, claiming} {
		require.DirExists(t, p, "never removed without asking")
	}

	_, err = Clean(root, CleanOptions{Kept: true})
	require.NoError(t, err)
	require.NoDirExists(t, keptDir)
	require.DirExists(t, live.Path)
}

func TestCleanMissingRoot(t *testing.T) {
	es, err := Clean(filepath.Join(t.TempDir(), "none"), CleanOptions{})
	require.NoError(t, err)
	require.Empty(t, es)
}

func TestRootMustBeOurs(t *testing.T) {
	base := t.TempDir()
	target := filepath.Join(base, "elsewhere")
	require.NoError(t, os.Mkdir(target, 0o755))
	link := filepath.Join(base, "link")
	require.NoError(t, os.Symlink(target, link))
	_, err := Claim(link, Local, "x", false)
	require.ErrorContains(t, err, "not a directory (a symbolic link?)")
	_, err = Clean(link, CleanOptions{})
	require.ErrorContains(t, err, "set DBARENA_WORK or --work-dir")

	if os.Geteuid() != 0 {
		return // only root can give a directory to another user
	}
	other := filepath.Join(base, "other")
	require.NoError(t, os.Mkdir(other, 0o755))
	require.NoError(t, os.Chown(other, 65534, 65534))
	_, err = Claim(other, Local, "x", false)
	require.ErrorContains(t, err, "belongs to user 65534")
}

// TestOwnerFileFormat pins the owner file's keys: other versions of
// dbarena read it.
func TestOwnerFileFormat(t *testing.T) {
	o := Owner{Process: procid.ID{PID: 12, Start: 34, Boot: "b"}, Name: "pg", Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Keep: true, Servers: []Server{{Name: "pg", Process: procid.ID{PID: 13, Start: 35, Boot: "b"}}}}
	b, err := json.Marshal(o)
	require.NoError(t, err)
	require.JSONEq(t, `{"process":{"pid":12,"start":34,"boot":"b"},"name":"pg","created":"2026-01-02T03:04:05Z","keep":true,
		"servers":[{"name":"pg","process":{"pid":13,"start":35,"boot":"b"}}]}`, string(b))
}

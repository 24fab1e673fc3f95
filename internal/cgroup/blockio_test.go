package cgroup

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// placeFake makes pid a process of the fake tree whose /proc/PID/cgroup
// reads cgroup, and gives the fake /proc this process's mount table.
func (f *fakeTree) placeFake(pid int, cgroup string) {
	self := filepath.Join(f.cfg.proc, "self")
	require.NoError(f.t, os.MkdirAll(self, 0o755))
	f.write(self, "mountinfo", f.read(f.cfg.mountinfo)+"\n")
	dir := filepath.Join(f.cfg.proc, strconv.Itoa(pid))
	require.NoError(f.t, os.MkdirAll(dir, 0o755))
	f.write(dir, "cgroup", cgroup)
}

func TestV1CountIO(t *testing.T) {
	f := newFakeV1(t)
	g, err := newHost(f.cfg).New("pg", Limits{CountIO: true})
	require.NoError(t, err)
	require.Equal(t, MethodCgroupV1, g.Method())
	require.True(t, g.CountsIO())
	require.Empty(t, g.NoIOReason())
	require.Equal(t, "no limits (block I/O counted, cgroup v1)", g.Describe())
	dir := filepath.Join(f.root, "blkio", g.Name())
	require.Equal(t, []string{dir}, g.dirs, "blkio only: no controller that limits")
	require.Equal(t, "254:0 0", f.read(dir, "blkio.throttle.write_bps_device"),
		"a rule of no limit, so that blk-throttle counts on the disk")

	// A server and a child cgroup of its own: the counters are read from
	// any member, and hold every process below.
	f.placeFake(4242, "5:blkio:/"+g.Name()+"\n4:memory:/\n0::/\n")
	f.write(dir, "cgroup.procs", "4242\n4243\n")
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	f.write(sub, "cgroup.procs", "4300\n")
	f.write(dir, "blkio.throttle.io_service_bytes_recursive",
		"254:0 Read 8192\n254:0 Write 67108864\n254:0 Sync 67117056\n254:0 Async 0\n254:0 Discard 0\n254:0 Total 67117056\n"+
			"7:0 Read 0\n7:0 Write 0\n7:0 Total 0\nTotal 67117056\n")
	b, ok, err := findBlockIO(f.cfg.proc, 4242)
	require.NoError(t, err)
	require.True(t, ok)
	require.False(t, b.V2())
	require.Equal(t, "cgroup v1 blkio "+dir, b.String())
	devs, err := b.Read()
	require.NoError(t, err)
	require.Equal(t, []DeviceIO{{Major: 254, ReadBytes: 8192, WriteBytes: 64 << 20}, {Major: 7}}, devs)
	pids, err := b.Procs()
	require.NoError(t, err)
	require.ElementsMatch(t, []int{4242, 4243, 4300}, pids)
	in, err := g.Contains(4242)
	require.NoError(t, err)
	require.True(t, in)

	require.NoError(t, os.Remove(filepath.Join(sub, "cgroup.procs")))
	require.NoError(t, os.Remove(sub))
	require.NoError(t, g.Close())
	require.NoDirExists(t, dir)
}

func TestV1CountIOWithLimits(t *testing.T) {
	f := newFakeV1(t)
	g, err := newHost(f.cfg).New("pg", Limits{CPUs: 1, MemoryBytes: 1 << 30, CountIO: true})
	require.NoError(t, err)
	require.True(t, g.CountsIO())
	require.Len(t, g.dirs, 4, "cpu, cpuacct, memory and blkio")
	require.Equal(t, "254:0 0", f.read(g.v1["blkio"], "blkio.throttle.write_bps_device"))
	require.Equal(t, "1 CPU (cfs quota 100000/100000 us), 1 GiB memory (no swap), cgroup v1", g.Describe(),
		"counting is not a limit")
	require.NoError(t, g.Close())
}

// Counting I/O is extra: where it cannot be had, the limits still hold
// and a group that was only to count becomes no group, without error.
func TestCountIOFallsBack(t *testing.T) {
	noBlkio := func(t *testing.T) *fakeTree {
		f := newFakeV1(t)
		mi := f.read(f.cfg.mountinfo)
		mi = mi[:len(mi)-len(lastLine(mi))] // blkio is the last hierarchy
		f.write(filepath.Dir(f.cfg.mountinfo), "mountinfo", mi)
		return f
	}
	noRule := func(t *testing.T) *fakeTree {
		f := newFakeV1(t)
		f.cfg.mkdir = func(p string) error {
			if err := f.mkdirV1(p); err != nil {
				return err
			}
			return os.RemoveAll(filepath.Join(p, "blkio.throttle.write_bps_device"))
		}
		return f
	}
	for name, tc := range map[string]struct {
		tree   func(*testing.T) *fakeTree
		reason string
	}{
		"no blkio hierarchy": {noBlkio, "[blkio]"},
		"rule refused":       {noRule, "no disk accepts a blkio rule"},
	} {
		t.Run(name, func(t *testing.T) {
			f := tc.tree(t)
			h := newHost(f.cfg)
			g, err := h.New("pg", Limits{CPUs: 1, CountIO: true})
			require.NoError(t, err)
			require.Equal(t, MethodCgroupV1, g.Method())
			require.False(t, g.CountsIO())
			require.Contains(t, g.NoIOReason(), tc.reason)
			require.NotContains(t, g.v1, "blkio")
			require.Equal(t, "100000", f.read(g.v1["cpu"], "cpu.cfs_quota_us"))
			require.NoError(t, g.Close())

			g, err = h.New("pg", Limits{CountIO: true})
			require.NoError(t, err)
			require.Equal(t, MethodNone, g.Method())
			require.False(t, g.CountsIO())
			require.Contains(t, g.NoIOReason(), tc.reason)
			require.Equal(t, "no limits", g.Describe())
			require.Empty(t, g.dirs, "nothing left behind")
			require.NoError(t, g.Close())
		})
	}
}

// lastLine is the last line of s, its newline included.
func lastLine(s string) string {
	for i := len(s) - 2; i >= 0; i-- {
		if s[i] == '\n' {
			return s[i+1:]
		}
	}
	return s
}

func TestV2CountIO(t *testing.T) {
	f := newFakeV2(t, "cpu io memory pids", "/")
	g, err := newHost(f.cfg).New("pg", Limits{CountIO: true})
	require.NoError(t, err)
	require.Equal(t, MethodCgroupV2, g.Method())
	require.True(t, g.CountsIO())
	require.Equal(t, "+io +memory", f.read(f.root, "cgroup.subtree_control"),
		"writeback is charged to the cgroup only with memory on")
	require.Equal(t, "no limits (block I/O counted, cgroup v2)", g.Describe())

	f.placeFake(4242, "0::/"+g.Name()+"\n")
	f.write(g.v2dir, "cgroup.procs", "4242\n")
	f.write(g.v2dir, "io.stat", "254:0 rbytes=4096 wbytes=1048576 rios=1 wios=16 dbytes=0 dios=0\n"+
		"8:16 wbytes=512 rbytes=0 rios=0 wios=1 dbytes=0 dios=0 cost.usage=7\n")
	b, ok, err := findBlockIO(f.cfg.proc, 4242)
	require.NoError(t, err)
	require.True(t, ok)
	require.True(t, b.V2())
	devs, err := b.Read()
	require.NoError(t, err)
	require.Equal(t, []DeviceIO{{Major: 254, ReadBytes: 4096, WriteBytes: 1 << 20}, {Major: 8, Minor: 16, WriteBytes: 512}}, devs)
	require.NoError(t, g.Close())

	t.Run("with limits", func(t *testing.T) {
		f := newFakeV2(t, "cpu io memory pids", "/")
		g, err := newHost(f.cfg).New("pg", Limits{CPUs: 1, MemoryBytes: 1 << 30, CountIO: true})
		require.NoError(t, err)
		require.True(t, g.CountsIO())
		require.Equal(t, "+cpu +memory +io", f.read(f.root, "cgroup.subtree_control"))
		require.NoError(t, g.Close())
	})
	t.Run("no io controller", func(t *testing.T) {
		f := newFakeV2(t, "cpu memory pids", "/")
		g, err := newHost(f.cfg).New("pg", Limits{CPUs: 1, CountIO: true})
		require.NoError(t, err)
		require.Equal(t, MethodCgroupV2, g.Method())
		require.False(t, g.CountsIO())
		require.Contains(t, g.NoIOReason(), "lacks io")
		require.Equal(t, "+cpu", f.read(f.root, "cgroup.subtree_control"))
		require.NoError(t, g.Close())
	})
}

func TestFindBlockIONone(t *testing.T) {
	for name, tc := range map[string]struct {
		v1     bool
		cgroup string
	}{
		"v1 root":               {true, "5:blkio:/\n0::/\n"},
		"v1 not in blkio":       {true, "4:memory:/x\n0::/x\n"},
		"v2 root":               {false, "0::/\n"},
		"v2 without io counted": {false, "0::/svc\n"},
	} {
		t.Run(name, func(t *testing.T) {
			var f *fakeTree
			if tc.v1 {
				f = newFakeV1(t)
			} else {
				f = newFakeV2(t, "cpu io memory", "/")
				f.cgroup("svc", "cpu memory", "") // no io.stat
			}
			f.placeFake(77, tc.cgroup)
			_, ok, err := findBlockIO(f.cfg.proc, 77)
			require.NoError(t, err)
			require.False(t, ok)
		})
	}
	t.Run("gone", func(t *testing.T) {
		f := newFakeV1(t)
		f.placeFake(77, "")
		_, _, err := findBlockIO(f.cfg.proc, 78)
		require.ErrorContains(t, err, "block I/O counters of 78")
	})
}

func TestBlockIOFormats(t *testing.T) {
	for name, tc := range map[string]struct {
		v2      bool
		content string
		want    []DeviceIO
		err     string
	}{
		"v1 empty":       {content: "Total 0\n"},
		"v1 bad device":  {content: "254 Read 1\n", err: `bad device "254"`},
		"v1 bad count":   {content: "254:0 Read x\n", err: "device 254:0"},
		"v2 empty":       {v2: true, content: ""},
		"v2 bad device":  {v2: true, content: "vda rbytes=1\n", err: `bad device "vda"`},
		"v2 bad count":   {v2: true, content: "254:0 rbytes=-1\n", err: "device 254:0"},
		"v2 other keys":  {v2: true, content: "254:0 rios=5 cost.wait=1\n", want: []DeviceIO{{Major: 254}}},
		"v1 other lines": {content: "254:0 Sync 5\n254:0 Write 3\n", want: []DeviceIO{{Major: 254, WriteBytes: 3}}},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			file := "blkio.throttle.io_service_bytes_recursive"
			if tc.v2 {
				file = "io.stat"
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, file), []byte(tc.content), 0o644))
			got, err := BlockIO{dir: dir, v2: tc.v2}.Read()
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

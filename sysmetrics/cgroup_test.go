package sysmetrics

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/cgroup"
)

// fakeCgroup is a cgroup's counters as a test sets them.
type fakeCgroup struct {
	devs     []cgroup.DeviceIO
	procs    []int
	procsErr error
}

func (f *fakeCgroup) Read() ([]cgroup.DeviceIO, error) { return f.devs, nil }
func (f *fakeCgroup) Procs() ([]int, error)            { return f.procs, f.procsErr }

// writeSysBlock makes a /sys/dev/block of whole disks vda (254:0), loop0
// (7:0) and dm-0 (253:0), and the partition vda1 (254:1).
func writeSysBlock(t *testing.T, root string) {
	t.Helper()
	for dev, uevent := range map[string]string{
		"254:0": "MAJOR=254\nMINOR=0\nDEVNAME=vda\nDEVTYPE=disk\n",
		"254:1": "MAJOR=254\nMINOR=1\nDEVNAME=vda1\nDEVTYPE=partition\nPARTN=1\n",
		"7:0":   "MAJOR=7\nMINOR=0\nDEVNAME=loop0\nDEVTYPE=disk\n",
		"253:0": "MAJOR=253\nMINOR=0\nDEVNAME=dm-0\nDEVTYPE=disk\n",
	} {
		dir := filepath.Join(root, "dev", "block", dev)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "uevent"), []byte(uevent), 0o644))
	}
}

// TestProcessTreeCgroup checks where a tree's disk figures come from, on
// fixtures: its cgroup's counters while the cgroup holds the tree alone,
// summed over whole disks the machine counts; /proc's reads, and no
// writes, when the cgroup is shared from the start; nothing while someone
// else is inside. The page cache dirtied always comes from /proc. One
// second between samples: bytes read as bytes per second.
func TestProcessTreeCgroup(t *testing.T) {
	root := filepath.Join(t.TempDir(), "proc")
	sys := filepath.Join(t.TempDir(), "sys")
	writeSysBlock(t, sys)
	stranger := fakeProc{pid: 7, ppid: 1, start: 1}
	tree := func(read, write int) []fakeProc {
		return []fakeProc{{pid: 100, ppid: 1, start: 10, read: read, write: write},
			{pid: 101, ppid: 100, start: 20}, stranger}
	}
	devs := func(n uint64) []cgroup.DeviceIO {
		return []cgroup.DeviceIO{
			{Major: 254, Minor: 0, ReadBytes: n, WriteBytes: 2 * n},
			{Major: 254, Minor: 1, ReadBytes: 1e9, WriteBytes: 1e9}, // a partition: its disk counts it
			{Major: 7, Minor: 0, ReadBytes: 1e9, WriteBytes: 1e9},   // a loop device's file is on a disk
			{Major: 253, Minor: 0, ReadBytes: 1e9, WriteBytes: 1e9}, // so are a device-mapper volume's blocks
			{Major: 9, Minor: 9, ReadBytes: 1e9, WriteBytes: 1e9},   // gone from sysfs
		}
	}
	type step struct {
		procs []fakeProc
		cg    fakeCgroup
		// want: disk read and write, page cache dirtied, per second.
		read, write, dirtied float64
	}
	nan := math.NaN()
	for name, steps := range map[string][]step{
		"own cgroup": {
			{procs: tree(0, 0), cg: fakeCgroup{devs: devs(1000), procs: []int{100, 101}}},
			{procs: tree(4096, 1<<20), cg: fakeCgroup{devs: devs(1500), procs: []int{101, 100}},
				read: 500, write: 1000, dirtied: 1 << 20},
			// A process that has exited since the cgroup was listed
			// is no stranger.
			{procs: tree(4096, 1<<20), cg: fakeCgroup{devs: devs(1600), procs: []int{100, 101, 4000}},
				read: 100, write: 200},
		},
		"shared from the start": {
			{procs: tree(0, 0), cg: fakeCgroup{devs: devs(0), procs: []int{100, 101, 7}}},
			{procs: tree(4096, 8192), cg: fakeCgroup{devs: devs(500), procs: []int{100, 101}},
				read: 4096, write: nan, dirtied: 8192},
		},
		"a stranger joins, then leaves": {
			{procs: tree(0, 0), cg: fakeCgroup{devs: devs(0), procs: []int{100}}},
			{procs: tree(0, 0), cg: fakeCgroup{devs: devs(100), procs: []int{100, 7}},
				read: nan, write: nan},
			{procs: tree(0, 0), cg: fakeCgroup{devs: devs(300), procs: []int{100}},
				read: nan, write: nan},
			{procs: tree(0, 0), cg: fakeCgroup{devs: devs(600), procs: []int{100}},
				read: 300, write: 600},
		},
		"unreadable cgroup": {
			{procs: tree(0, 0), cg: fakeCgroup{devs: devs(0), procs: []int{100}}},
			{procs: tree(0, 0), cg: fakeCgroup{devs: devs(100), procsErr: errors.New("gone")},
				read: nan, write: nan},
		},
	} {
		t.Run(name, func(t *testing.T) {
			cg := &fakeCgroup{}
			src := &processTree{fs: procFS{root: root}, sysRoot: sys, name: "db", role: RoleDatabase, pid: 100,
				findBlock: func(pid int) (blockCounter, bool, error) {
					require.Equal(t, 100, pid)
					return cg, true, nil
				}}
			t0 := time.Unix(1000, 0)
			for i, st := range steps {
				writeProcs(t, root, st.procs...)
				*cg = st.cg
				s, ok, err := src.Sample(t0.Add(time.Duration(i) * time.Second))
				require.NoError(t, err)
				if i == 0 {
					require.False(t, ok)
					continue
				}
				require.True(t, ok)
				requireSame(t, st.read, s.DiskReadBps, "disk read")
				requireSame(t, st.write, s.DiskWriteBps, "disk write")
				requireSame(t, st.dirtied, s.PageCacheWriteBps, "page cache dirtied")
				require.True(t, math.IsNaN(s.DiskReadIOPS) && math.IsNaN(s.DiskWriteIOPS))
			}
		})
	}
}

func TestProcessTreeNoCgroup(t *testing.T) {
	root := filepath.Join(t.TempDir(), "proc")
	for name, find := range map[string]func(int) (blockCounter, bool, error){
		"none":  func(int) (blockCounter, bool, error) { return nil, false, nil },
		"error": func(int) (blockCounter, bool, error) { return nil, false, errors.New("no mount table") },
	} {
		t.Run(name, func(t *testing.T) {
			src := &processTree{fs: procFS{root: root}, name: "db", role: RoleDatabase, pid: 100, findBlock: find}
			t0 := time.Unix(1000, 0)
			writeProcs(t, root, fakeProc{pid: 100, ppid: 1, start: 10})
			_, _, err := src.Sample(t0)
			require.NoError(t, err)
			writeProcs(t, root, fakeProc{pid: 100, ppid: 1, start: 10, read: 10, write: 20})
			s, ok, err := src.Sample(t0.Add(time.Second))
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, 10.0, s.DiskReadBps)
			require.True(t, math.IsNaN(s.DiskWriteBps))
			require.Equal(t, 20.0, s.PageCacheWriteBps)
		})
	}
}

func TestUeventDisk(t *testing.T) {
	for name, tc := range map[string]struct {
		uevent string
		name   string
		disk   bool
	}{
		"disk":      {"MAJOR=259\nMINOR=0\nDEVNAME=nvme0n1\nDEVTYPE=disk\nDISKSEQ=1\n", "nvme0n1", true},
		"partition": {"MAJOR=259\nMINOR=1\nDEVNAME=nvme0n1p1\nDEVTYPE=partition\n", "nvme0n1p1", false},
		"empty":     {"", "", false},
	} {
		t.Run(name, func(t *testing.T) {
			n, d := ueventDisk([]byte(tc.uevent))
			require.Equal(t, tc.name, n)
			require.Equal(t, tc.disk, d)
		})
	}
}

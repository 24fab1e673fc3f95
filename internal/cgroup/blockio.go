package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// BlockIO reads the block-layer counters of one cgroup: the bytes of the
// I/O requests (bios) its processes sent to each device, counted when
// they are submitted. Unlike /proc/PID/io's write_bytes, which counts
// page-cache pages as they are dirtied (a whole large folio for a few
// bytes written into it), these are bytes that go to the disk.
//
// What is charged to the cgroup differs between versions:
//   - cgroup v2 (io.stat, with the io and memory controllers enabled):
//     reads, direct I/O, and writeback of the pages the cgroup dirtied,
//     whoever writes them back (the kernel's flusher threads included).
//   - cgroup v1 (blkio.throttle.io_service_bytes_recursive): the bios
//     that the cgroup's own tasks submit: reads, direct I/O, and
//     writeback they start themselves (fsync, fdatasync,
//     sync_file_range). What kernel threads write is charged to the
//     root cgroup: the flusher threads' writeback of pages dirtied and
//     never synced, a journal's commits (jbd2 for ext4). v1 counts a
//     lower bound of what the cgroup's writes cost the disk.
type BlockIO struct {
	dir string
	v2  bool
}

// DeviceIO is what a cgroup's processes sent to one block device, in
// bytes, since the cgroup was made.
type DeviceIO struct {
	Major, Minor          uint32
	ReadBytes, WriteBytes uint64
}

// FindBlockIO returns the counters of the cgroup that process pid sits
// in: in the blkio hierarchy on cgroup v1, else in the unified hierarchy
// where its io controller counts (io.stat is there). ok is false, with
// no error, when pid sits in a root cgroup, which counts the whole
// machine or, on v1, nothing, or when no hierarchy counts block I/O.
func FindBlockIO(pid int) (b BlockIO, ok bool, err error) {
	return findBlockIO("/proc", pid)
}

// findBlockIO is FindBlockIO on the proc file system at proc; the mount
// table is this process's (proc/self/mountinfo), where the cgroup file
// systems are read.
func findBlockIO(proc string, pid int) (BlockIO, bool, error) {
	b, err := os.ReadFile(filepath.Join(proc, "self", "mountinfo"))
	if err != nil {
		return BlockIO{}, false, fmt.Errorf("limits: block I/O counters of %d: read mount table: %w", pid, err)
	}
	mounts, err := parseMountinfo(string(b))
	if err != nil {
		return BlockIO{}, false, fmt.Errorf("limits: block I/O counters of %d: %w", pid, err)
	}
	m, err := readMembership(filepath.Join(proc, strconv.Itoa(pid), "cgroup"))
	if err != nil {
		return BlockIO{}, false, fmt.Errorf("limits: block I/O counters of %d: %w", pid, err)
	}
	for _, mt := range mounts {
		if mt.has("blkio") {
			// blkio is mounted as v1, so the unified hierarchy cannot
			// have io: this is the only place it is counted.
			p, ok := m.v1["blkio"]
			if !ok || p == "/" {
				return BlockIO{}, false, nil
			}
			return BlockIO{dir: mt.dir(p)}, true, nil
		}
	}
	if !m.hasV2 || m.v2 == "/" {
		return BlockIO{}, false, nil
	}
	for _, mt := range mounts {
		if !mt.v2 {
			continue
		}
		if dir := mt.dir(m.v2); exists(filepath.Join(dir, "io.stat")) {
			return BlockIO{dir: dir, v2: true}, true, nil
		}
	}
	return BlockIO{}, false, nil
}

// String names the counters: "cgroup v1 blkio /sys/fs/cgroup/blkio/x".
func (b BlockIO) String() string {
	if b.v2 {
		return "cgroup v2 io " + b.dir
	}
	return "cgroup v1 blkio " + b.dir
}

// V2 reports whether the counters are cgroup v2's, which include the
// writeback of the cgroup's dirty pages by the kernel's flusher threads.
func (b BlockIO) V2() bool { return b.v2 }

// Read returns the counters of every device the cgroup has used.
func (b BlockIO) Read() ([]DeviceIO, error) {
	var out []DeviceIO
	var err error
	if b.v2 {
		out, err = readIOStat(filepath.Join(b.dir, "io.stat"))
	} else {
		out, err = readServiceBytes(filepath.Join(b.dir, "blkio.throttle.io_service_bytes_recursive"))
	}
	if err != nil {
		return nil, fmt.Errorf("limits: block I/O of %s: %w", b, err)
	}
	return out, nil
}

// Procs lists the processes in the cgroup and in the cgroups below it:
// those whose I/O the counters hold.
func (b BlockIO) Procs() ([]int, error) {
	var pids []int
	err := filepath.WalkDir(b.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p != b.dir && errors.Is(err, fs.ErrNotExist) {
				return nil // a child cgroup removed during the walk
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(filepath.Join(p, "cgroup.procs"))
		if err != nil {
			if p != b.dir && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		for _, f := range strings.Fields(string(data)) {
			pid, err := strconv.Atoi(f)
			if err != nil {
				return fmt.Errorf("%s: %w", filepath.Join(p, "cgroup.procs"), err)
			}
			pids = append(pids, pid)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("limits: processes of %s: %w", b, err)
	}
	return pids, nil
}

// readIOStat parses a v2 io.stat file: "MAJ:MIN rbytes=N wbytes=N
// rios=N wios=N dbytes=N dios=N" per device, keys in any order, more
// keys on newer kernels.
func readIOStat(path string) ([]DeviceIO, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []DeviceIO
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		d, err := parseDevice(f[0])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			var dst *uint64
			switch k {
			case "rbytes":
				dst = &d.ReadBytes
			case "wbytes":
				dst = &d.WriteBytes
			default:
				continue
			}
			if *dst, err = strconv.ParseUint(v, 10, 64); err != nil {
				return nil, fmt.Errorf("%s: device %s: %w", path, f[0], err)
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// readServiceBytes parses a v1 blkio io_service_bytes file: "MAJ:MIN
// Read N", "MAJ:MIN Write N" and more operations per device (Sync,
// Async, Discard, Total), then a "Total N" line.
func readServiceBytes(path string) ([]DeviceIO, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []DeviceIO
	index := map[string]int{}
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || (f[1] != "Read" && f[1] != "Write") {
			continue
		}
		i, ok := index[f[0]]
		if !ok {
			d, err := parseDevice(f[0])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			i = len(out)
			index[f[0]] = i
			out = append(out, d)
		}
		n, err := strconv.ParseUint(f[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: device %s: %w", path, f[0], err)
		}
		if f[1] == "Read" {
			out[i].ReadBytes = n
		} else {
			out[i].WriteBytes = n
		}
	}
	return out, nil
}

// parseDevice reads "MAJ:MIN".
func parseDevice(s string) (DeviceIO, error) {
	major, minor, ok := strings.Cut(s, ":")
	a, err1 := strconv.ParseUint(major, 10, 32)
	b, err2 := strconv.ParseUint(minor, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		return DeviceIO{}, fmt.Errorf("bad device %q", s)
	}
	return DeviceIO{Major: uint32(a), Minor: uint32(b)}, nil
}

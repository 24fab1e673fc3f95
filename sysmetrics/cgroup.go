package sysmetrics

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/internal/cgroup"
)

// blockCounter is a cgroup's block-layer counters (cgroup.BlockIO; tests
// give fixtures).
type blockCounter interface {
	// Read returns the bytes read and written per device.
	Read() ([]cgroup.DeviceIO, error)
	// Procs lists the processes the counters hold.
	Procs() ([]int, error)
}

// findCgroup finds the block-layer counters of pid's cgroup.
func findCgroup(pid int) (blockCounter, bool, error) {
	b, ok, err := cgroup.FindBlockIO(pid)
	return b, ok, err
}

// cgroupIO is the block I/O of a process tree's own cgroup.
type cgroupIO struct {
	c       blockCounter
	sysRoot string
	// disks caches whether each device (major, minor) is counted.
	disks map[[2]uint32]bool
}

// bytes returns what the cgroup read from and wrote to the disks the
// machine counts (whole disks; NewMachine's rule), or an error when the
// cgroup is not the tree's alone: members, listed before the tree was
// walked, holds a live process the tree does not, whose I/O would count
// as the tree's.
func (g *cgroupIO) bytes(members []int, membersErr error, tree map[int]procReading, fs procFS) (read, write float64, err error) {
	if membersErr != nil {
		return 0, 0, membersErr
	}
	for _, pid := range members {
		if _, ok := tree[pid]; !ok && fs.alive(pid) {
			return 0, 0, fmt.Errorf("process %d shares the cgroup but is not in the tree", pid)
		}
	}
	devs, err := g.c.Read()
	if err != nil {
		return 0, 0, err
	}
	for _, d := range devs {
		if g.counted(d.Major, d.Minor) {
			read += float64(d.ReadBytes)
			write += float64(d.WriteBytes)
		}
	}
	return read, write, nil
}

// counted reports whether a device's traffic is the machine's storage
// traffic, as NewMachine counts it: a whole disk (DEVTYPE=disk in its
// uevent) that countedDisk accepts. A device-mapper volume's I/O is
// charged again to the disks below it, and a loop device's to the disk
// holding its file.
func (g *cgroupIO) counted(major, minor uint32) bool {
	key := [2]uint32{major, minor}
	if c, ok := g.disks[key]; ok {
		return c
	}
	b, err := os.ReadFile(filepath.Join(g.sysRoot, "dev", "block", fmt.Sprintf("%d:%d", major, minor), "uevent"))
	if err != nil {
		return false // gone; asked again next time
	}
	name, disk := ueventDisk(b)
	c := disk && countedDisk(name)
	g.disks[key] = c
	return c
}

// ueventDisk reads a block device's uevent file: its name and whether it
// is a whole disk (not a partition).
func ueventDisk(b []byte) (name string, disk bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "DEVNAME":
			name = v
		case "DEVTYPE":
			disk = v == "disk"
		}
	}
	return name, disk
}

// alive reports whether process pid exists.
func (p procFS) alive(pid int) bool {
	_, err := os.Stat(filepath.Join(p.root, strconv.Itoa(pid)))
	return err == nil
}

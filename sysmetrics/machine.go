package sysmetrics

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// machine samples a whole local machine.
type machine struct {
	procRoot, sysRoot string
	name              string
	r                 rater
}

// NewMachine samples this machine: CPU from /proc/stat (busy = all but
// idle and iowait, 100 per core), memory in use from /proc/meminfo (total
// minus available), disks from /proc/diskstats (whole disks only, so a
// partition or device-mapper volume is not counted twice) and network
// from /proc/net/dev (every interface, lo included: local databases talk
// over it).
func NewMachine(name string) Source { return &machine{procRoot: "/proc", sysRoot: "/sys", name: name} }

func (m *machine) Name() string { return m.name }
func (m *machine) Role() string { return RoleMachine }

// Sample implements Source.
func (m *machine) Sample(now time.Time) (Sample, bool, error) {
	var c counters
	var err error
	if c.cpuSeconds, err = m.cpu(); err != nil {
		return Sample{}, false, err
	}
	if c.memory, err = m.memory(); err != nil {
		return Sample{}, false, err
	}
	if c.diskRead, c.diskWrite, c.diskReadOps, c.diskWriteOps, err = m.disks(); err != nil {
		return Sample{}, false, err
	}
	if c.netRx, c.netTx, err = parseNetDev(filepath.Join(m.procRoot, "net", "dev")); err != nil {
		return Sample{}, false, err
	}
	s, ok := m.r.next(c, now)
	s.Host, s.Role = m.name, RoleMachine
	return s, ok, nil
}

func (m *machine) cpu() (float64, error) {
	f, err := os.Open(filepath.Join(m.procRoot, "stat"))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0, fmt.Errorf("empty %s", f.Name())
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 6 || fields[0] != "cpu" {
		return 0, fmt.Errorf("%s: unexpected first line %q", f.Name(), sc.Text())
	}
	var busy float64
	// user nice system idle iowait irq softirq steal (guest and
	// guest_nice are already inside user and nice).
	for i, v := range fields[1:min(len(fields), 9)] {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", f.Name(), err)
		}
		if i != 3 && i != 4 {
			busy += n
		}
	}
	return busy / clockTicks, nil
}

func (m *machine) memory() (float64, error) {
	f, err := os.Open(filepath.Join(m.procRoot, "meminfo"))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var total, avail float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		n, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
		switch k {
		case "MemTotal":
			total = n * 1024
		case "MemAvailable":
			avail = n * 1024
		}
	}
	return total - avail, sc.Err()
}

// wholeDisk reports whether a block device is a disk of its own: listed
// in /sys/block (partitions are not) and not a loop, RAM, optical,
// device-mapper or software-RAID device stacked on other disks.
func (m *machine) wholeDisk(name string) bool {
	for _, p := range []string{"loop", "ram", "zram", "sr", "dm-", "md"} {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	_, err := os.Stat(filepath.Join(m.sysRoot, "block", name))
	return err == nil
}

// disks sums /proc/diskstats over whole disks: bytes (512-byte sectors)
// and completed operations.
func (m *machine) disks() (rb, wb, rops, wops float64, err error) {
	b, err := os.ReadFile(filepath.Join(m.procRoot, "diskstats"))
	if err != nil {
		return 0, 0, 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 10 || !m.wholeDisk(f[2]) {
			continue
		}
		num := func(i int) float64 { n, _ := strconv.ParseFloat(f[i], 64); return n }
		rops += num(3)
		rb += num(5) * 512
		wops += num(7)
		wb += num(9) * 512
	}
	return rb, wb, rops, wops, nil
}

// parseNetDev sums received and sent bytes over every interface.
func parseNetDev(path string) (rx, tx float64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		_, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 9 {
			continue
		}
		r, err1 := strconv.ParseFloat(f[0], 64)
		t, err2 := strconv.ParseFloat(f[8], 64)
		if err1 != nil || err2 != nil {
			return 0, 0, fmt.Errorf("%s: bad line %q", path, line)
		}
		rx += r
		tx += t
	}
	return rx, tx, nil
}

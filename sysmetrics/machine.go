package sysmetrics

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// machine samples a whole local machine.
type machine struct {
	procRoot, sysRoot string
	// shaped reads the links' shaped rates (shapedRates; tests give
	// their own).
	shaped func() (map[string]float64, error)
	name   string
	r      rater
}

// NewMachine samples this machine, with RoleMachine: CPU from /proc/stat
// (busy = every mode but idle and iowait, 100 per core), memory in use
// from /proc/meminfo (MemTotal - MemAvailable: page cache the kernel can
// drop is not in use), disks from /proc/diskstats (whole disks only, see
// countedDisk) and network from /proc/net/dev (every interface, lo
// included: local databases talk over it), with the busiest link of
// known capacity (its sysfs speed, or the rate of a tbf qdisc at its
// root).
func NewMachine(name string) Source {
	return &machine{procRoot: "/proc", sysRoot: "/sys", shaped: shapedRates, name: name}
}

// Name implements Source.
func (m *machine) Name() string { return m.name }

// Role implements Source.
func (m *machine) Role() string { return RoleMachine }

// Sample implements Source.
func (m *machine) Sample(now time.Time) (Sample, bool, error) {
	c, err := m.read()
	if err != nil {
		return Sample{}, false, fmt.Errorf("machine %s: %w", m.name, err)
	}
	s, ok := m.r.next(c, now)
	s.Host, s.Role = m.name, RoleMachine
	return s, ok, nil
}

// read reads the machine's counters.
func (m *machine) read() (counters, error) {
	c := counters{pageCacheWrite: math.NaN()} // dirtied pages are not the disks'
	files := []struct {
		name  string
		parse func([]byte) error
	}{
		{"stat", func(b []byte) (err error) {
			c.cpuSeconds, c.cores, err = parseCPUStat(b)
			return err
		}},
		{"meminfo", func(b []byte) (err error) { c.memory, err = parseMeminfo(b); return err }},
		{"diskstats", func(b []byte) (err error) {
			d, err := parseDiskstats(b, m.wholeDisk)
			c.diskRead, c.diskWrite, c.diskReadOps, c.diskWriteOps, c.diskBusy = d.readBytes, d.writeBytes, d.readOps, d.writeOps, d.busy
			return err
		}},
		{"net/dev", func(b []byte) (err error) {
			if c.links, err = parseNetDevLinks(b); err != nil {
				return err
			}
			for _, l := range c.links {
				c.netRx, c.netTx = c.netRx+l.rx, c.netTx+l.tx
			}
			return nil
		}},
	}
	for _, f := range files {
		path := filepath.Join(m.procRoot, f.name)
		b, err := os.ReadFile(path)
		if err != nil {
			return counters{}, err
		}
		if err := f.parse(b); err != nil {
			return counters{}, fmt.Errorf("%s: %w", path, err)
		}
	}
	var shaped map[string]float64
	if m.shaped != nil {
		// Without the rates (no netlink here), links keep their speeds.
		shaped, _ = m.shaped()
	}
	withCapacities(c.links, m.sysRoot, shaped)
	return c, nil
}

// wholeDisk reports whether a local block device is counted: a disk of
// its own by name (countedDisk) and listed in /sys/block, where
// partitions are not, whatever their naming scheme.
func (m *machine) wholeDisk(name string) bool {
	if !countedDisk(name) {
		return false
	}
	_, err := os.Stat(filepath.Join(m.sysRoot, "block", name))
	return err == nil
}

// parseCPUStat returns the busy seconds of all cores from /proc/stat's
// first line, and each core's from its cpuN line: user nice system idle
// iowait irq softirq steal, in ticks. Idle and iowait (idle with I/O
// outstanding) are not busy; steal (the hypervisor ran someone else) is,
// like node_exporter's other modes: the core was not there for us. Guest
// time is already inside user and nice.
func parseCPUStat(b []byte) (float64, map[int]coreCounters, error) {
	var total float64
	var cores map[int]coreCounters
	first := true
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			if first {
				return 0, nil, fmt.Errorf("unexpected first line %q", line)
			}
			continue
		}
		busy, steal, err := cpuTicks(f)
		if err != nil {
			return 0, nil, err
		}
		if first {
			if f[0] != "cpu" {
				return 0, nil, fmt.Errorf("unexpected first line %q", line)
			}
			total, first = busy/clockTicks, false
			continue
		}
		n, err := strconv.Atoi(strings.TrimPrefix(f[0], "cpu"))
		if err != nil {
			continue
		}
		if cores == nil {
			cores = map[int]coreCounters{}
		}
		cores[n] = coreCounters{busy: busy / clockTicks, steal: steal / clockTicks}
	}
	if first {
		return 0, nil, errors.New("no cpu line")
	}
	return total, cores, nil
}

// cpuTicks sums a cpu line's busy ticks and returns its steal ticks.
func cpuTicks(f []string) (busy, steal float64, err error) {
	if len(f) < 6 {
		return 0, 0, fmt.Errorf("unexpected line %q", strings.Join(f, " "))
	}
	for i, v := range f[1:min(len(f), 9)] {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%s field %d: %w", f[0], i+1, err)
		}
		switch i {
		case 3, 4: // idle, iowait
		case 7:
			busy += n
			steal = n
		default:
			busy += n
		}
	}
	return busy, steal, nil
}

// parseMeminfo returns MemTotal - MemAvailable from /proc/meminfo, in
// bytes.
func parseMeminfo(b []byte) (float64, error) {
	total, avail := math.NaN(), math.NaN()
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		if k != "MemTotal" && k != "MemAvailable" {
			continue
		}
		n, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", k, err)
		}
		if k == "MemTotal" {
			total = n * 1024
		} else {
			avail = n * 1024
		}
	}
	if math.IsNaN(total) || math.IsNaN(avail) {
		// MemAvailable exists since Linux 3.14; without it "in use"
		// would need the kernel's own estimate of reclaimable memory.
		return 0, fmt.Errorf("no MemTotal and MemAvailable")
	}
	return total - avail, nil
}

// diskTotals are /proc/diskstats' cumulative figures summed over disks.
type diskTotals struct {
	readBytes, writeBytes float64
	readOps, writeOps     float64
	// busy is each disk's time with I/O in flight (io_ticks), in
	// seconds; a kernel whose lines lack it leaves the disk out.
	busy map[string]float64
}

// parseDiskstats sums /proc/diskstats over the devices keep accepts:
// bytes (sectors are 512 bytes whatever the device's block size) and
// completed operations; and it keeps each one's time with I/O in flight.
func parseDiskstats(b []byte, keep func(string) bool) (diskTotals, error) {
	d := diskTotals{busy: map[string]float64{}}
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 10 {
			return diskTotals{}, fmt.Errorf("line %d: short line %q", i+1, line)
		}
		if !keep(f[2]) {
			continue
		}
		// major minor name, then reads completed(3) merged(4)
		// sectors(5) ms(6), writes completed(7) merged(8) sectors(9)
		// ms(10), in flight(11), ms doing I/O(12).
		var n [4]float64
		for j, k := range []int{3, 5, 7, 9} {
			var err error
			if n[j], err = strconv.ParseFloat(f[k], 64); err != nil {
				return diskTotals{}, fmt.Errorf("line %d (%s): %w", i+1, f[2], err)
			}
		}
		d.readOps, d.readBytes, d.writeOps, d.writeBytes = d.readOps+n[0], d.readBytes+n[1]*512, d.writeOps+n[2], d.writeBytes+n[3]*512
		if len(f) > 12 {
			if ms, err := strconv.ParseFloat(f[12], 64); err == nil {
				d.busy[f[2]] = ms / 1000
			}
		}
	}
	return d, nil
}

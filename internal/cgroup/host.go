package cgroup

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"

	"golang.org/x/sys/unix"
)

// config is what a Host reads from the machine; tests point it at fake
// cgroup trees, since one machine has only one cgroup version.
type config struct {
	mountinfo string // /proc/self/mountinfo
	self      string // /proc/self/cgroup
	proc      string // /proc, for other processes' membership
	// mkdir and rmdir create and remove a group directory. On cgroupfs the
	// kernel fills a new directory with its control files and rmdir takes
	// them along; a fake tree has to do both itself.
	mkdir func(path string) error
	rmdir func(path string) error
	shell string // runs the v1 join script
	// sysBlock lists the machine's block devices (/sys/block), each
	// with a dev file holding MAJOR:MINOR.
	sysBlock string
	// taskset applies CPU affinity to a command ("" when not installed).
	taskset string
	// cores are the CPUs this process may use, the pool pinned groups are
	// given cores from.
	cores []int
}

// systemConfig reads the live machine.
func systemConfig() (config, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return config{}, fmt.Errorf("limits: read this process's CPU affinity: %w", err)
	}
	var cores []int
	for c := 0; len(cores) < set.Count(); c++ {
		if set.IsSet(c) {
			cores = append(cores, c)
		}
	}
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		taskset = "" // Start then applies the affinity itself
	}
	return config{
		mountinfo: "/proc/self/mountinfo",
		self:      "/proc/self/cgroup",
		proc:      "/proc",
		mkdir:     func(p string) error { return os.Mkdir(p, 0o755) },
		rmdir:     unix.Rmdir,
		shell:     "/bin/sh",
		sysBlock:  "/sys/block",
		taskset:   taskset,
		cores:     cores,
	}, nil
}

// Host creates groups on this machine. It remembers which cores its open
// groups are pinned to and gives the next group the least used ones, so two
// targets do not share a core while another is idle. Keep one Host per
// process; it is safe for concurrent use.
type Host struct {
	cfg  config
	mu   sync.Mutex
	load map[int]int // core -> open groups pinned to it
	next int         // where the search for free cores starts, round-robin
}

// NewHost reads the cores this process may run on.
func NewHost() (*Host, error) {
	cfg, err := systemConfig()
	if err != nil {
		return nil, err
	}
	return newHost(cfg), nil
}

func newHost(cfg config) *Host { return &Host{cfg: cfg, load: map[int]int{}} }

// New creates a group on a Host of its own: fine for one group, but
// several groups made this way all get the first cores when pinned.
func New(name string, l Limits) (*Group, error) {
	h, err := NewHost()
	if err != nil {
		return nil, err
	}
	return h.New(name, l)
}

// New creates the group "dbarena-<name>-<random>" with limits l, with
// cgroups when the machine lets it (v1 when every controller needed is
// mounted as v1, else v2), else with CPU affinity, which Method and
// Describe then say. When memory is to be limited and no memory controller
// is usable, New fails with an error wrapping ErrNoMemoryLimit and the
// reason. Zero limits give a group of method MethodNone; CountIO alone
// gives a cgroup that limits nothing, or MethodNone where none can be
// made.
func (h *Host) New(name string, l Limits) (*Group, error) {
	if err := validName(name); err != nil {
		return nil, err
	}
	if err := l.Validate(len(h.cfg.cores)); err != nil {
		return nil, fmt.Errorf("%w (group %s)", err, name)
	}
	g := &Group{host: h, limits: l, method: MethodNone, v2fd: -1, countIO: l.CountIO}
	if !l.limited() && !l.CountIO {
		g.name = "dbarena-" + name
		return g, nil
	}
	suffix := make([]byte, 4)
	if _, err := rand.Read(suffix); err != nil {
		return nil, fmt.Errorf("limits: random group suffix: %w", err)
	}
	g.name = "dbarena-" + name + "-" + hex.EncodeToString(suffix)
	if l.Pin {
		var err error
		if g.cores, err = h.pick(l); err != nil {
			return nil, fmt.Errorf("%w (group %s)", err, name)
		}
	}
	cgErr := h.cgroup(g)
	if cgErr != nil && g.countIO && l.limited() {
		// Counting is extra; the limits are what was asked for.
		g.countIO, g.ioFallback = false, cgErr.Error()
		cgErr = h.cgroup(g)
	}
	if cgErr == nil {
		return g, nil
	}
	if !l.limited() {
		g.countIO, g.fallback = false, cgErr.Error()
		return g, nil
	}
	if l.MemoryBytes > 0 {
		h.release(g.cores)
		return nil, fmt.Errorf("limits: cap %s at %s memory: %w: %w", name, formatBytes(l.MemoryBytes), ErrNoMemoryLimit, cgErr)
	}
	if g.cores == nil {
		var err error
		if g.cores, err = h.pick(l); err != nil {
			return nil, fmt.Errorf("%w (group %s)", err, name)
		}
	}
	g.method, g.fallback = MethodAffinity, cgErr.Error()
	return g, nil
}

// cgroup creates g's cgroup directories and writes its limits.
func (h *Host) cgroup(g *Group) error {
	b, err := os.ReadFile(h.cfg.mountinfo)
	if err != nil {
		return fmt.Errorf("read mount table: %w", err)
	}
	mounts, err := parseMountinfo(string(b))
	if err != nil {
		return err
	}
	self, err := readMembership(h.cfg.self)
	if err != nil {
		return err
	}
	need := g.controllers()
	var missing []string
	for _, c := range need {
		if !slices.ContainsFunc(mounts, func(m mount) bool { return m.has(c) }) {
			missing = append(missing, c)
		}
	}
	if len(missing) == 0 {
		return h.createV1(g, mounts, self)
	}
	for _, m := range mounts {
		if m.v2 && self.hasV2 {
			return h.createV2(g, m, self.v2)
		}
	}
	return fmt.Errorf("no cgroup v1 hierarchy for %v and no cgroup v2 mount", missing)
}

// controllers are the v1 controllers the group needs: those that
// enforce its limits, and blkio to count its I/O.
func (g *Group) controllers() []string {
	cs := g.limits.controllers()
	if g.countIO {
		cs = append(cs, "blkio")
	}
	return cs
}

// controllersV2 are the v2 controllers the group needs: the same names,
// but block I/O is counted by io, which needs memory too: writeback is
// charged to the cgroup that owns the dirty page, which the memory
// controller tracks.
func (g *Group) controllersV2() []string {
	cs := g.limits.controllers()
	if g.countIO {
		cs = append(cs, "io")
		if !slices.Contains(cs, "memory") {
			cs = append(cs, "memory")
		}
	}
	return cs
}

// controllers are the v1 controllers (v2 names are the same) that enforce l.
func (l Limits) controllers() []string {
	var cs []string
	if l.CPUs > 0 {
		cs = append(cs, "cpu")
	}
	if l.MemoryBytes > 0 {
		cs = append(cs, "memory")
	}
	if l.Pin {
		cs = append(cs, "cpuset")
	}
	return cs
}

// pick reserves the cores l pins to: l.Cores, when given, else the
// least loaded.
func (h *Host) pick(l Limits) ([]int, error) {
	if len(l.Cores) == 0 {
		return h.take(l.cores()), nil
	}
	if len(l.Cores) < l.cores() {
		return nil, fmt.Errorf("limits: %v CPUs need %d whole cores; given %s", l.CPUs, l.cores(), formatCores(l.Cores))
	}
	for _, c := range l.Cores {
		if !slices.Contains(h.cfg.cores, c) {
			return nil, fmt.Errorf("limits: core %d is not one of this host's (%s)", c, formatCores(h.cfg.cores))
		}
	}
	picked := slices.Clone(l.Cores)
	slices.Sort(picked)
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range picked {
		h.load[c]++
	}
	return picked, nil
}

// take reserves n cores: the least loaded, ties going round-robin.
func (h *Host) take(n int) []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	pool := h.cfg.cores
	if n <= 0 || len(pool) == 0 {
		return nil
	}
	order := make([]int, 0, len(pool))
	for i := range pool {
		order = append(order, pool[(h.next+i)%len(pool)])
	}
	slices.SortStableFunc(order, func(a, b int) int { return h.load[a] - h.load[b] })
	picked := slices.Clone(order[:min(n, len(order))])
	slices.Sort(picked)
	for _, c := range picked {
		h.load[c]++
	}
	h.next = (h.next + n) % len(pool)
	return picked
}

// release returns cores taken by take.
func (h *Host) release(cores []int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range cores {
		if h.load[c]--; h.load[c] <= 0 {
			delete(h.load, c)
		}
	}
}

// writeFile writes a control file. It never creates one: a missing file
// means the controller is not enabled, and creating a regular file in its
// place (on a fake tree) would hide that.
func writeFile(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.WriteString(value); err != nil {
		f.Close()
		return fmt.Errorf("write %q to %s: %w", value, path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %q to %s: %w", value, path, err)
	}
	return nil
}

// exists reports whether a control file is there.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

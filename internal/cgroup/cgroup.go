package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// createV1 makes one directory per controller hierarchy under this
// process's own cgroup there, so the group nests inside whatever limits the
// caller already runs under (a container's, a CI job's).
func (h *Host) createV1(g *Group, mounts []mount, self membership) error {
	ctrls := g.controllers()
	if g.limits.CPUs > 0 && slices.ContainsFunc(mounts, func(m mount) bool { return m.has("cpuacct") }) {
		// The cpu controller limits but does not count; cpuacct gives
		// Usage the group's CPU time to cross-check the limit with.
		ctrls = append(ctrls, "cpuacct")
	}
	g.v1 = map[string]string{}
	g.v1paths = map[string]string{}
	for _, c := range ctrls {
		i := slices.IndexFunc(mounts, func(m mount) bool { return m.has(c) })
		m := mounts[i]
		// Co-mounted controllers (cpu,cpuacct) share one directory.
		dir := filepath.Join(m.dir(self.v1[c]), g.name)
		if !slices.Contains(g.dirs, dir) {
			if err := h.cfg.mkdir(dir); err != nil {
				g.removeDirs()
				return fmt.Errorf("cgroup v1: %w", err) // the error names mkdir and the path
			}
			g.dirs = append(g.dirs, dir)
		}
		g.v1[c] = dir
		g.v1paths[c] = m.hierarchyPath(dir)
	}
	g.method = MethodCgroupV1
	if err := g.configureV1(); err != nil {
		g.removeDirs()
		g.method = MethodNone
		return fmt.Errorf("cgroup v1: %w", err)
	}
	return nil
}

// configureV1 writes the limits into the v1 directories.
func (g *Group) configureV1() error {
	l := g.limits
	if l.CPUs > 0 {
		d := g.v1["cpu"]
		if err := writeFile(filepath.Join(d, "cpu.cfs_period_us"), strconv.Itoa(cfsPeriod)); err != nil {
			return err
		}
		if err := writeFile(filepath.Join(d, "cpu.cfs_quota_us"), strconv.FormatInt(l.quota(), 10)); err != nil {
			return err
		}
	}
	if l.MemoryBytes > 0 {
		d := g.v1["memory"]
		limit := strconv.FormatInt(l.MemoryBytes, 10)
		if err := writeFile(filepath.Join(d, "memory.limit_in_bytes"), limit); err != nil {
			return err
		}
		// Without a memory+swap cap a tree over its limit is swapped out
		// rather than stopped, and a memory-bound benchmark passes slowly
		// instead of failing. memsw exists only with swap accounting.
		switch memsw, swappiness := filepath.Join(d, "memory.memsw.limit_in_bytes"), filepath.Join(d, "memory.swappiness"); {
		case exists(memsw):
			if err := writeFile(memsw, limit); err != nil {
				return err
			}
			g.swap = "no swap"
		case exists(swappiness):
			if err := writeFile(swappiness, "0"); err != nil {
				return err
			}
			g.swap = "swap not accounted, swappiness 0"
		default:
			g.swap = "swap not capped"
		}
	}
	if g.countIO {
		if err := g.startCountingV1(); err != nil {
			return err
		}
	}
	if l.Pin {
		d := g.v1["cpuset"]
		// A v1 cpuset starts empty and refuses tasks until both lists are
		// set; memory nodes are inherited from the parent.
		mems, err := os.ReadFile(filepath.Join(filepath.Dir(d), "cpuset.mems"))
		if err != nil {
			return fmt.Errorf("read parent cpuset: %w", err)
		}
		if err := writeFile(filepath.Join(d, "cpuset.cpus"), formatCores(g.cores)); err != nil {
			return err
		}
		if err := writeFile(filepath.Join(d, "cpuset.mems"), strings.TrimSpace(string(mems))); err != nil {
			return err
		}
	}
	return nil
}

// startCountingV1 makes the blkio controller count the group's I/O on
// every disk. blk-throttle, whose files v1 reads the counters from, sets
// itself up on a disk only when a first rule is written for it, and
// until then counts nothing (io_service_bytes stayed "Total 0" on Linux
// 6.18 for a group that wrote 64 MiB with O_DIRECT). A rule of 0 bytes/s
// means no limit: it sets blk-throttle up and throttles nothing. The disk
// stays set up after the group is removed, at the cost of a check per
// I/O. A device that refuses (one without media) is skipped; none
// accepting is an error, since then nothing would be counted.
func (g *Group) startCountingV1() error {
	devs, err := blockDevices(g.host.cfg.sysBlock)
	if err != nil {
		return err
	}
	rule := filepath.Join(g.v1["blkio"], "blkio.throttle.write_bps_device")
	var errs []error
	for _, d := range devs {
		if err := writeFile(rule, d+" 0"); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == len(devs) && len(devs) > 0 {
		return fmt.Errorf("no disk accepts a blkio rule: %w", errors.Join(errs...))
	}
	return nil
}

// blockDevices lists the MAJOR:MINOR of every device in a /sys/block
// directory.
func blockDevices(sysBlock string) ([]string, error) {
	entries, err := os.ReadDir(sysBlock)
	if err != nil {
		return nil, fmt.Errorf("list block devices: %w", err)
	}
	var out []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(sysBlock, e.Name(), "dev"))
		if err != nil {
			continue // not a device
		}
		out = append(out, strings.TrimSpace(string(b)))
	}
	return out, nil
}

// createV2 makes the group's directory in the unified hierarchy. Enabling
// a controller for children is refused in a cgroup that holds processes
// itself (the "no internal processes" rule), which is where this process
// usually sits, so it tries its own cgroup first and then each ancestor.
// Controllers enabled in a parent stay enabled after Close: siblings may
// rely on them.
func (h *Host) createV2(g *Group, m mount, self string) error {
	need := g.controllersV2()
	var reasons []string
	for base := m.dir(self); ; base = filepath.Dir(base) {
		err := enableV2(base, need)
		if err == nil {
			dir := filepath.Join(base, g.name)
			if err := h.cfg.mkdir(dir); err != nil {
				return fmt.Errorf("cgroup v2: %w", err) // the error names mkdir and the path
			}
			g.dirs = append(g.dirs, dir)
			g.v2dir, g.v2path, g.method = dir, m.hierarchyPath(dir), MethodCgroupV2
			if err := g.configureV2(); err != nil {
				g.removeDirs()
				g.method = MethodNone
				return fmt.Errorf("cgroup v2: %w", err)
			}
			return nil
		}
		reasons = append(reasons, err.Error())
		if base == m.point || base == "/" {
			break
		}
	}
	return fmt.Errorf("cgroup v2: no cgroup can give a child %v: %s", need, strings.Join(reasons, "; "))
}

// enableV2 makes controllers need available to dir's children.
func enableV2(dir string, need []string) error {
	if len(need) == 0 {
		return nil
	}
	avail, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return fmt.Errorf("read controllers: %w", err)
	}
	enabled, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if err != nil {
		return fmt.Errorf("read subtree control: %w", err)
	}
	var add []string
	for _, c := range need {
		if !slices.Contains(strings.Fields(string(avail)), c) {
			return fmt.Errorf("%s/cgroup.controllers lacks %s (has %q)", dir, c, strings.TrimSpace(string(avail)))
		}
		if !slices.Contains(strings.Fields(string(enabled)), c) {
			add = append(add, "+"+c)
		}
	}
	if len(add) == 0 {
		return nil
	}
	return writeFile(filepath.Join(dir, "cgroup.subtree_control"), strings.Join(add, " "))
}

// configureV2 writes the limits into the v2 directory.
func (g *Group) configureV2() error {
	l, d := g.limits, g.v2dir
	if l.CPUs > 0 {
		if err := writeFile(filepath.Join(d, "cpu.max"), fmt.Sprintf("%d %d", l.quota(), cfsPeriod)); err != nil {
			return err
		}
	}
	if l.MemoryBytes > 0 {
		if err := writeFile(filepath.Join(d, "memory.max"), strconv.FormatInt(l.MemoryBytes, 10)); err != nil {
			return err
		}
		// memory.max does not count swap; without memory.swap.max=0 an
		// over-limit tree is swapped out instead of stopped.
		if swap := filepath.Join(d, "memory.swap.max"); exists(swap) {
			if err := writeFile(swap, "0"); err != nil {
				return err
			}
			g.swap = "no swap"
		} else {
			g.swap = "swap not capped"
		}
	}
	if l.Pin {
		if err := writeFile(filepath.Join(d, "cpuset.cpus"), formatCores(g.cores)); err != nil {
			return err
		}
	}
	return nil
}

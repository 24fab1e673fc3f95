package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Usage is what the kernel counted for a cgroup, to cross-check a
// measurement with the limit that produced it: a CPU-limited server
// should show throttling, an OOM in a result should show as OOMKills.
type Usage struct {
	// CPU is the CPU time used by every process that was in the group.
	CPU time.Duration
	// HasCPU is false when CPU time is not counted (a v1 group without
	// a CPU limit has no cpuacct directory).
	HasCPU bool
	// Throttled is the time the group was held back by its CPU quota,
	// over ThrottledPeriods quota periods.
	Throttled        time.Duration
	ThrottledPeriods int64
	// Memory and MemoryPeak are the current and highest charge, page
	// cache included; OOMKills counts processes killed at the limit.
	// They are counted only with a memory limit (HasMemory), MemoryPeak
	// only on Linux 5.19+ for v2.
	Memory     int64
	MemoryPeak int64
	OOMKills   int64
	HasMemory  bool
}

// Usage reads the group's counters. It fails for a group without cgroup.
func (g *Group) Usage() (Usage, error) {
	var u Usage
	var err error
	switch g.method {
	case MethodCgroupV1:
		err = g.usageV1(&u)
	case MethodCgroupV2:
		err = g.usageV2(&u)
	default:
		return u, fmt.Errorf("limits: %s counts nothing: usage needs a cgroup", g.method)
	}
	if err != nil {
		return u, fmt.Errorf("limits: usage of %s: %w", g.name, err)
	}
	return u, nil
}

func (g *Group) usageV1(u *Usage) error {
	if d, ok := g.v1["cpuacct"]; ok {
		ns, err := readInt(filepath.Join(d, "cpuacct.usage"))
		if err != nil {
			return err
		}
		u.CPU, u.HasCPU = time.Duration(ns), true
	}
	if d, ok := g.v1["cpu"]; ok {
		stat, err := readKeyed(filepath.Join(d, "cpu.stat"))
		if err != nil {
			return err
		}
		u.Throttled, u.ThrottledPeriods = time.Duration(stat["throttled_time"]), stat["nr_throttled"]
	}
	if d, ok := g.v1["memory"]; ok {
		var err error
		if u.Memory, err = readInt(filepath.Join(d, "memory.usage_in_bytes")); err != nil {
			return err
		}
		if u.MemoryPeak, err = readInt(filepath.Join(d, "memory.max_usage_in_bytes")); err != nil {
			return err
		}
		oom, err := readKeyed(filepath.Join(d, "memory.oom_control"))
		if err != nil {
			return err
		}
		u.OOMKills, u.HasMemory = oom["oom_kill"], true
	}
	return nil
}

func (g *Group) usageV2(u *Usage) error {
	d := g.v2dir
	// cpu.stat is there with or without the cpu controller.
	stat, err := readKeyed(filepath.Join(d, "cpu.stat"))
	if err != nil {
		return err
	}
	u.CPU, u.HasCPU = time.Duration(stat["usage_usec"])*time.Microsecond, true
	u.Throttled = time.Duration(stat["throttled_usec"]) * time.Microsecond
	u.ThrottledPeriods = stat["nr_throttled"]
	if g.limits.MemoryBytes > 0 {
		if u.Memory, err = readInt(filepath.Join(d, "memory.current")); err != nil {
			return err
		}
		if peak := filepath.Join(d, "memory.peak"); exists(peak) {
			if u.MemoryPeak, err = readInt(peak); err != nil {
				return err
			}
		}
		events, err := readKeyed(filepath.Join(d, "memory.events"))
		if err != nil {
			return err
		}
		u.OOMKills, u.HasMemory = events["oom_kill"], true
	}
	return nil
}

// readInt reads a control file holding one integer.
func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// readKeyed reads a control file of "key value" lines.
func readKeyed(path string) (map[string]int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	kv := map[string]int64{}
	for line := range strings.SplitSeq(string(b), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: key %s: %w", path, k, err)
		}
		kv[k] = n
	}
	return kv, nil
}

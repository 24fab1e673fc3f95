// Package cgroup caps the CPUs and memory of a local process tree, so that
// a vertical-scaling study (1, 2, 4 cores; 1, 2 GiB) runs several database
// servers side by side on one machine, and counts the tree's disk I/O.
//
// A Group is one control group: on cgroup v1 a directory under each
// controller it needs (cpu and cpuacct for CPUs, memory for memory, cpuset
// for pinned cores), on cgroup v2 one directory with cpu.max, memory.max and
// memory.swap.max. The process must be inside the group from its first
// instruction, because servers fork (postgres) or spawn threads (java) at
// once and those children inherit the group at birth; moving a running
// tree afterwards would race with them. So Command rewrites an *exec.Cmd
// instead of adopting a started process:
//
//   - cgroup v1: the command runs through /bin/sh, which writes its own
//     pid into every controller's cgroup.procs and then execs the program.
//     If the command drops privileges (SysProcAttr.Credential) the group's
//     cgroup.procs files are handed to that user first, since the kernel
//     lets a process move itself only into a cgroup whose cgroup.procs it
//     may write.
//   - cgroup v2: the kernel clones the process straight into the group
//     (SysProcAttr.UseCgroupFD, CLONE_INTO_CGROUP, Linux 5.7+); no shell,
//     and credentials do not matter since the parent does the placing.
//   - no usable cgroup (not root, read-only /sys/fs/cgroup, controller
//     missing): the CPU limit becomes CPU affinity to ceil(CPUs) cores,
//     through taskset, or through Start, which forks from a thread that
//     carries the mask. Memory cannot be capped that way, so New fails
//     with ErrNoMemoryLimit rather than promise a limit that does not hold.
//
// A group can also count the block I/O of its tree (Limits.CountIO), with
// or without limits: the blkio controller on v1, io (with memory, so that
// writeback is charged to the cgroup that dirtied the pages) on v2.
// FindBlockIO finds those counters from any process inside, and BlockIO
// reads them: bytes that reached the block layer, where /proc/PID/io only
// has pages dirtied in the page cache.
//
// A Host hands out groups on one machine and spreads pinned cores across
// them, so two targets do not share a core while a free one exists; keep one
// Host per process. New is a shortcut for a single group.
//
// Typical use:
//
//	host, err := cgroup.NewHost()
//	...
//	g, err := host.New("postgres", cgroup.Limits{CPUs: 2, MemoryBytes: 1 << 30})
//	if err != nil {
//		return err
//	}
//	defer g.Close() // after the server has exited
//	cmd := exec.Command(postgres, args...)
//	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
//	if err := g.Command(cmd); err != nil {
//		return err
//	}
//	log.Info("limits", "applied", g.Describe()) // "2 CPUs (cfs quota ...), 1 GiB memory ..., cgroup v1"
//	err = cmd.Start()
package cgroup

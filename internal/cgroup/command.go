package cgroup

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// joinFailed is the exit status of the v1 wrapper when it could not join
// the group; the program is then never started.
const joinFailed = 125

// Command rewrites cmd, not yet started, so that the program is inside the
// group from its first instruction; call it once, then start cmd as usual.
// cmd keeps its Dir, Env, standard streams and SysProcAttr, credentials
// included.
//
// On cgroup v1 cmd becomes /bin/sh -c SCRIPT PATH ARGS..., the script
// writing its pid into the group and exec'ing PATH; the program then sees
// its resolved path as argv[0]. On cgroup v2 the kernel clones the process
// into the group (SysProcAttr.UseCgroupFD). With CPU affinity cmd runs
// through taskset; without taskset Command fails and Start must be used.
func (g *Group) Command(cmd *exec.Cmd) error {
	if err := g.checkCmd(cmd); err != nil {
		return err
	}
	switch g.method {
	case MethodNone:
		return nil
	case MethodCgroupV1:
		return g.wrapV1(cmd)
	case MethodCgroupV2:
		return g.cloneIntoV2(cmd)
	}
	if g.host.cfg.taskset == "" {
		return errors.New("limits: taskset is not installed: start the command with Group.Start, which sets the CPU affinity itself")
	}
	g.wrap(cmd, g.host.cfg.taskset, "-c", formatCores(g.cores))
	return nil
}

// Start starts cmd inside the group: Command, then cmd.Start. With CPU
// affinity and no taskset it forks from a thread pinned to the group's
// cores, which the child inherits.
func (g *Group) Start(cmd *exec.Cmd) error {
	if g.method == MethodAffinity && g.host.cfg.taskset == "" {
		if err := g.checkCmd(cmd); err != nil {
			return err
		}
		return g.startPinned(cmd)
	}
	program := cmd.Path
	if err := g.Command(cmd); err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("limits: start %s in %s: %w", program, g.name, err)
	}
	return nil
}

// checkCmd refuses commands that cannot be wrapped, and catches a missing
// program now: behind a wrapper it would only show as an exit status.
func (g *Group) checkCmd(cmd *exec.Cmd) error {
	switch {
	case cmd.Process != nil:
		return fmt.Errorf("limits: %s already started: too late to join %s", cmd.Path, g.name)
	case cmd.Err != nil:
		return fmt.Errorf("limits: %w", cmd.Err)
	case cmd.Path == "":
		return errors.New("limits: command has no program")
	}
	g.mu.Lock()
	closed := g.released
	g.mu.Unlock()
	if closed {
		return fmt.Errorf("limits: group %s is closed", g.name)
	}
	path := cmd.Path
	if !filepath.IsAbs(path) && cmd.Dir != "" {
		path = filepath.Join(cmd.Dir, path)
	}
	if err := unix.Access(path, unix.X_OK); err != nil {
		return fmt.Errorf("limits: program %s: %w", path, err)
	}
	return nil
}

// wrap makes cmd run prog PREFIX... PATH ARGS...
func (g *Group) wrap(cmd *exec.Cmd, prog string, prefix ...string) {
	args := cmd.Args
	if len(args) == 0 {
		args = []string{cmd.Path}
	}
	wrapped := append([]string{prog}, prefix...)
	wrapped = append(wrapped, cmd.Path)
	cmd.Args = append(wrapped, args[1:]...)
	cmd.Path = prog
}

// wrapV1 runs cmd through a shell that joins every controller's cgroup and
// then execs the program.
func (g *Group) wrapV1(cmd *exec.Cmd) error {
	if cmd.SysProcAttr != nil && cmd.SysProcAttr.Chroot != "" {
		return fmt.Errorf("limits: %s: a chrooted command cannot reach /sys/fs/cgroup to join the group", cmd.Path)
	}
	var procs []string
	for _, d := range g.dirs {
		procs = append(procs, filepath.Join(d, "cgroup.procs"))
	}
	if cmd.SysProcAttr != nil && cmd.SysProcAttr.Credential != nil && cmd.SysProcAttr.Credential.Uid != 0 {
		// The shell runs with the command's credentials, and v1 lets a
		// process move itself into a cgroup whose cgroup.procs it may
		// write. Handing over cgroup.procs alone keeps the limit files
		// root's, so the server cannot raise its own limits.
		cred := cmd.SysProcAttr.Credential
		for _, p := range procs {
			if err := os.Chown(p, int(cred.Uid), int(cred.Gid)); err != nil {
				return fmt.Errorf("limits: let uid %d join %s: %w", cred.Uid, g.name, err)
			}
		}
	}
	var script strings.Builder
	for _, p := range procs {
		fmt.Fprintf(&script, "echo $$ >%s && ", shellQuote(p))
	}
	fmt.Fprintf(&script, `exec "$0" "$@"; echo %s >&2; exit %d`,
		shellQuote("dbarena limits: could not join cgroup "+g.name+"; not starting "+cmd.Path), joinFailed)
	g.wrap(cmd, g.host.cfg.shell, "-c", script.String())
	return nil
}

// shellQuote quotes s as one word for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// cloneIntoV2 has the kernel create the process inside the v2 group.
func (g *Group) cloneIntoV2(cmd *exec.Cmd) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.v2fd < 0 {
		fd, err := unix.Open(g.v2dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("limits: open %s: %w", g.v2dir, err)
		}
		g.v2fd = fd
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if cmd.SysProcAttr.UseCgroupFD && cmd.SysProcAttr.CgroupFD != g.v2fd {
		return fmt.Errorf("limits: %s already goes into another cgroup (UseCgroupFD)", cmd.Path)
	}
	cmd.SysProcAttr.UseCgroupFD = true
	cmd.SysProcAttr.CgroupFD = g.v2fd
	return nil
}

// startPinned starts cmd from an OS thread whose affinity is the group's
// cores: a forked child inherits its parent thread's mask. The thread is
// given back to the Go scheduler only once its own mask is restored; if
// restoring fails, the goroutine exits still locked and the runtime ends the
// thread, so no other goroutine runs pinned.
func (g *Group) startPinned(cmd *exec.Cmd) error {
	var want unix.CPUSet
	for _, c := range g.cores {
		want.Set(c)
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		var old unix.CPUSet
		if err := unix.SchedGetaffinity(0, &old); err != nil {
			runtime.UnlockOSThread()
			done <- fmt.Errorf("limits: read thread affinity: %w", err)
			return
		}
		if err := unix.SchedSetaffinity(0, &want); err != nil {
			done <- fmt.Errorf("limits: pin thread to cores %s: %w", formatCores(g.cores), err)
			return // still locked: the thread's mask is unknown, let it end
		}
		startErr := cmd.Start()
		if err := unix.SchedSetaffinity(0, &old); err == nil {
			runtime.UnlockOSThread()
		}
		if startErr != nil {
			startErr = fmt.Errorf("limits: start %s on cores %s: %w", cmd.Path, formatCores(g.cores), startErr)
		}
		done <- startErr
	}()
	return <-done
}

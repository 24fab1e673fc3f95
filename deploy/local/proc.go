package local

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// proc is one server process started by the provider. The server runs in
// its own process group so that stopping it also reaches any helper it
// forked, and its output goes to a log file that errors quote.
type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	err     error // the exit status, valid after done closes
}

// startProc starts cmd with output to logPath. The caller has set
// cmd.Dir, Env and SysProcAttr.Credential as the server needs.
func startProc(name string, cmd *exec.Cmd, logPath string) (*proc, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: log file: %w", name, err)
	}
	defer logf.Close() // the child has its own descriptor
	cmd.Stdout, cmd.Stderr = logf, logf
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	// The server must not outlive dbarena if dbarena is killed outright.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: start %s: %w", name, cmd.Path, err)
	}
	p := &proc{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// pid returns the process id.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends sig, waits up to grace, then kills the whole process group.
// The group is continued right after sig: a server frozen by SIGSTOP (a
// debugger, a test, a job-control stop) holds sig pending and waited out
// the whole grace (a Ctrl-C took 32.7 s, "did not stop within 30s of
// terminated; killed"); continued, it acts on it at once.
func (p *proc) stop(ctx context.Context, sig syscall.Signal, grace time.Duration) error {
	if p.exited() {
		return nil
	}
	_ = p.cmd.Process.Signal(sig) // it may have exited in between: the wait below tells
	_ = syscall.Kill(-p.pid(), syscall.SIGCONT)
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	case <-ctx.Done():
		// Out of time for a clean stop: the data goes with it anyway,
		// or was asked to be kept as it is.
		grace = 0
	}
	_ = syscall.Kill(-p.pid(), syscall.SIGKILL)
	select {
	case <-p.done:
		if grace == 0 {
			return nil
		}
		return fmt.Errorf("%s: did not stop within %s of %s; killed", p.name, grace, sig)
	case <-time.After(10 * time.Second):
		return fmt.Errorf("%s: pid %d survives SIGKILL", p.name, p.pid())
	}
}

// logTail returns the last lines of the server's log for error messages.
func (p *proc) logTail(n int) string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// failure builds an error naming the server, what failed and its log.
func (p *proc) failure(what string, err error) error {
	msg := fmt.Sprintf("%s: %s: %v (log %s)", p.name, what, err, p.logPath)
	if tail := p.logTail(15); tail != "" {
		msg += "\n  " + strings.ReplaceAll(tail, "\n", "\n  ")
	}
	return errors.New(msg)
}

// waitReady polls ready every 100 ms until it returns nil, the process
// exits, or the timeout passes.
func (p *proc) waitReady(ctx context.Context, timeout time.Duration, ready func() error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		if last = ready(); last == nil {
			return nil
		}
		select {
		case <-p.done:
			return p.failure("exited while starting", p.err)
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				return p.failure(fmt.Sprintf("not ready after %s", timeout), last)
			}
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// dialReady succeeds when a TCP connection to addr opens.
func dialReady(addr string) func() error {
	return func() error {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return err
		}
		return c.Close()
	}
}

// logReady succeeds when the log contains marker.
func logReady(p *proc, marker string) func() error {
	return func() error {
		b, err := os.ReadFile(p.logPath)
		if err != nil {
			return err
		}
		if !strings.Contains(string(b), marker) {
			return fmt.Errorf("waiting for %q in the log", marker)
		}
		return nil
	}
}

// freePort returns a TCP port that is free on every address given, drawn
// below the kernel's ephemeral range so that outgoing connections made
// before the server binds cannot take it. Another process could still
// bind it first; the server then fails to start and its log says so.
func freePort(taken map[int]bool, addrs ...string) (int, error) {
	lo := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if v, err := strconv.Atoi(f[0]); err == nil && v > 11000 {
				lo = v
			}
		}
	}
	seed := time.Now().UnixNano()
	for try := 0; try < 2000; try++ {
		port := 10000 + int((seed+int64(try)*7919)%int64(lo-10000))
		if taken[port] {
			continue
		}
		if portFree(port, addrs) {
			taken[port] = true
			return port, nil
		}
	}
	return 0, fmt.Errorf("no free TCP port found between 10000 and %d", lo)
}

func portFree(port int, addrs []string) bool {
	if len(addrs) == 0 {
		addrs = []string{"127.0.0.1"}
	}
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for _, a := range addrs {
		l, err := net.Listen("tcp", net.JoinHostPort(a, strconv.Itoa(port)))
		if err != nil {
			return false
		}
		ls = append(ls, l)
	}
	return true
}

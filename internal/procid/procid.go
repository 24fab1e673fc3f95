// Package procid names a process so that a later reader can tell whether
// it still runs: its PID alone is not enough, since Linux hands a PID out
// again once its process is gone. An ID adds the process's start time
// (field 22 of /proc/PID/stat, in clock ticks since boot) and the boot it
// belongs to, which together no other process shares.
//
//	self, err := procid.Self()
//	...                      // write self into an owner or manifest file
//	if !self.Alive() { ... } // later, in another process
package procid

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ID identifies one process across PID reuse and reboots.
type ID struct {
	PID int `json:"pid"`
	// Start is the process's start time in clock ticks since boot; 0 when
	// unknown (a file written by an older version, or no /proc).
	Start uint64 `json:"start,omitempty"`
	// Boot is the kernel's boot ID; "" when unknown.
	Boot string `json:"boot,omitempty"`
}

// Self returns the ID of the calling process.
func Self() (ID, error) { return Of(os.Getpid()) }

// Of returns the ID of the running process pid.
func Of(pid int) (ID, error) {
	start, err := startTime(pid)
	if err != nil {
		return ID{PID: pid}, err
	}
	return ID{PID: pid, Start: start, Boot: bootID()}, nil
}

// Alive reports whether the process id names still runs. With a start
// time it must match the running process's, so that a PID handed to
// another process since is not taken for the owner, and a zombie (exited,
// not reaped yet) does not count; without one only the PID is checked,
// and a process this user may not signal counts as alive.
func (id ID) Alive() bool {
	if id.PID <= 0 {
		return false
	}
	if id.Boot != "" {
		if b := bootID(); b != "" && b != id.Boot {
			return false // the machine rebooted since
		}
	}
	if id.Start == 0 {
		err := syscall.Kill(id.PID, 0)
		return err == nil || errors.Is(err, syscall.EPERM)
	}
	st, err := readStat(id.PID)
	return err == nil && st.start == id.Start && !st.zombie
}

// String is "pid 123 (started at tick 456)".
func (id ID) String() string {
	if id.Start == 0 {
		return "pid " + strconv.Itoa(id.PID)
	}
	return fmt.Sprintf("pid %d (started at tick %d)", id.PID, id.Start)
}

// stat is what this package reads of /proc/PID/stat.
type stat struct {
	start uint64
	// zombie: the process has exited and waits for its parent to reap
	// it; it runs no more.
	zombie bool
}

// startTime returns field 22 of /proc/PID/stat.
func startTime(pid int) (uint64, error) {
	st, err := readStat(pid)
	return st.start, err
}

// readStat reads fields 3 (state) and 22 (start time) of /proc/PID/stat.
// The second field, the command name in parentheses, may hold spaces and
// parentheses itself, so the fields are counted from the last ')'.
func readStat(pid int) (stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, fmt.Errorf("process %d: %w", pid, err)
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return stat{}, fmt.Errorf("process %d: unexpected /proc/%d/stat", pid, pid)
	}
	// After ")" come field 3 (state) onwards: field 22 is the 20th.
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return stat{}, fmt.Errorf("process %d: /proc/%d/stat has %d fields", pid, pid, len(f)+2)
	}
	v, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return stat{}, fmt.Errorf("process %d: start time: %w", pid, err)
	}
	return stat{start: v, zombie: f[0] == "Z" || f[0] == "X"}, nil
}

// bootID returns the kernel's random boot ID, "" when unreadable.
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

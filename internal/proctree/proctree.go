// Package proctree stops and continues a whole local process tree: a
// server and every process it forked. The experiment stops the targets
// it is not measuring when they share cores with the one it is, so that
// their background work (a JVM's collector, compaction, a checkpoint)
// lands on their own trials, not on their neighbour's.
//
// A tree is read from /proc: every process whose parent chain leads to
// the root. Stopping signals the root first, so that it forks no new
// child, then its descendants, and reads the tree again until a pass
// finds no process it has not signalled.
package proctree

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// maxPasses bounds the reads of a tree that keeps forking.
const maxPasses = 5

// Stop sends SIGSTOP to root and every descendant.
func Stop(root int) error { return signalTree("/proc", root, syscall.SIGSTOP) }

// Continue sends SIGCONT to root and every descendant.
func Continue(root int) error { return signalTree("/proc", root, syscall.SIGCONT) }

// signalTree signals root, then its descendants as read from procRoot,
// pass after pass until one finds no new process.
func signalTree(procRoot string, root int, sig syscall.Signal) error {
	if err := syscall.Kill(root, sig); err != nil {
		return fmt.Errorf("signal %d: %w", root, err)
	}
	done := map[int]bool{root: true}
	for range maxPasses {
		pids, err := Descendants(procRoot, root)
		if err != nil {
			return err
		}
		fresh := 0
		for _, pid := range pids {
			if done[pid] {
				continue
			}
			fresh++
			done[pid] = true
			if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
				return fmt.Errorf("signal %d: %w", pid, err)
			}
		}
		if fresh == 0 {
			return nil
		}
	}
	return nil
}

// Descendants lists the processes below root (not root itself) as
// procRoot ("/proc") shows them.
func Descendants(procRoot string, root int) ([]int, error) {
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		if ppid, ok := parentOf(string(b)); ok {
			parent[pid] = ppid
		}
	}
	var out []int
	for pid := range parent {
		for p, hops := parent[pid], 0; hops < len(parent); p, hops = parent[p], hops+1 {
			if p == root {
				out = append(out, pid)
				break
			}
			if p <= 1 {
				break
			}
		}
	}
	return out, nil
}

// parentOf reads the parent PID from a /proc/PID/stat line: the field
// after the state, which follows the command in parentheses (that may
// hold spaces and parentheses itself).
func parentOf(stat string) (int, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

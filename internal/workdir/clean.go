package workdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// State says whose a directory under the root is.
type State string

// Directory states.
const (
	// Live: the owner runs. Never touched.
	Live State = "in use"
	// Dead: the owner is gone. Clean removes it.
	Dead State = "left by a dead run"
	// Kept: the owner is gone and asked to keep it (--keep). Clean
	// removes it only with CleanOptions.Kept.
	Kept State = "kept (--keep) by a dead run"
	// Unknown: no readable owner file (not dbarena's, or another
	// version's). Never touched.
	Unknown State = "no owner file"
)

// Entry is one directory found under the root.
type Entry struct {
	Path  string
	Kind  string
	State State
	// Owner is the owner file; nil when State is Unknown.
	Owner *Owner
	// Bytes is the disk space the directory uses (as du counts it).
	Bytes int64
	// Removed says Clean removed the directory; Killed are the owner's
	// servers it found still running and killed.
	Removed bool
	Killed  []Server
	// Err is what went wrong cleaning this directory.
	Err error
}

// Scan lists the directories under root's kinds, with their state and
// size, sorted by path. A missing root or kind lists nothing.
func Scan(root string) ([]Entry, error) {
	var out []Entry
	for _, kind := range Kinds() {
		dir := filepath.Join(root, kind)
		items, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("work directory: %w", err)
		}
		for _, it := range items {
			// Hidden: a claim being made (see Claim).
			if !it.IsDir() || strings.HasPrefix(it.Name(), ".") {
				continue
			}
			e := Entry{Path: filepath.Join(dir, it.Name()), Kind: kind, State: Unknown}
			if o, err := readOwner(e.Path); err == nil {
				e.Owner = o
				switch {
				case o.Process.Alive():
					e.State = Live
				case o.Keep:
					e.State = Kept
				default:
					e.State = Dead
				}
			}
			e.Bytes = diskUsage(e.Path)
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// CleanOptions say what Clean does.
type CleanOptions struct {
	// DryRun lists what would be removed and killed, and does neither.
	DryRun bool
	// Kept removes directories kept with --keep too.
	Kept bool
}

// Clean removes what dead runs left under root: for every directory
// whose owner is gone, it kills the owner's servers that still run (each
// checked by its start time, so a process that inherited a server's PID
// is left alone), then removes the directory, unless it was kept with
// --keep and opts.Kept is false. Directories of live owners, and those
// without an owner file, are never touched. It returns every directory
// it found; an entry's Err says why it could not be cleaned.
func Clean(root string, opts CleanOptions) ([]Entry, error) {
	if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err := Ensure(root); err != nil {
		return nil, err
	}
	entries, err := Scan(root)
	if err != nil {
		return entries, err
	}
	var errs []error
	for i := range entries {
		e := &entries[i]
		if e.State != Dead && e.State != Kept {
			continue
		}
		if opts.DryRun {
			e.Killed = survivors(e.Owner)
			e.Removed = e.State == Dead || opts.Kept
			continue
		}
		e.Killed, e.Err = killSurvivors(e.Owner)
		// A dead owner does not come back (Scan checked its start time):
		// removing now is safe.
		if e.State == Dead || opts.Kept {
			if err := os.RemoveAll(e.Path); err != nil {
				e.Err = errors.Join(e.Err, err)
			} else {
				e.Removed = true
			}
		}
		if e.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.Path, e.Err))
		}
	}
	return entries, errors.Join(errs...)
}

// survivors are the owner's servers that still run.
func survivors(o *Owner) []Server {
	var out []Server
	for _, s := range o.Servers {
		if s.Process.Alive() {
			out = append(out, s)
		}
	}
	return out
}

// killWait bounds the wait for a killed server to go.
const killWait = 10 * time.Second

// killSurvivors kills the owner's servers that outlived it, with their
// process groups (a server runs in a group of its own, with any helper
// it forked), and waits until they are gone.
func killSurvivors(o *Owner) ([]Server, error) {
	alive := survivors(o)
	for _, s := range alive {
		_ = syscall.Kill(-s.Process.PID, syscall.SIGKILL) // no such group: the kill below still applies
		_ = syscall.Kill(s.Process.PID, syscall.SIGKILL)
	}
	deadline := time.Now().Add(killWait)
	var errs []error
	for _, s := range alive {
		for s.Process.Alive() {
			if time.Now().After(deadline) {
				errs = append(errs, fmt.Errorf("server %s (%s) survives SIGKILL", s.Name, s.Process))
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return alive, errors.Join(errs...)
}

// diskUsage is the space a tree takes on disk, counted like du: allocated
// blocks, a hard-linked file once. Entries that vanish or cannot be read
// while it walks count as nothing.
func diskUsage(root string) int64 {
	type inode struct{ dev, ino uint64 }
	seen := map[inode]bool{}
	var total int64
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			total += fi.Size()
			return nil
		}
		if st.Nlink > 1 && !d.IsDir() {
			id := inode{uint64(st.Dev), st.Ino}
			if seen[id] {
				return nil
			}
			seen[id] = true
		}
		total += st.Blocks * 512
		return nil
	})
	return total
}

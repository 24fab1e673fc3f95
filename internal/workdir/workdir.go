// Package workdir is the one place on this machine's disk where dbarena
// keeps what a run needs while it runs: local databases' data, sockets
// and logs, the loaders' files, the reference tools' scripts. Each run's
// directory carries an owner file naming the process that made it (PID,
// start time, boot) and the servers it started, so that what a run killed
// outright left behind can be told from what a live run uses, and removed:
//
//	ROOT/local/PID-NAME-RANDOM/owner.json    a local deployment (deploy/local)
//	ROOT/loaders/PID-trial-RANDOM/...        a trial's loader files
//	ROOT/reference/PID-trial-RANDOM/...      a reference tool's scripts
//
// ROOT is --work-dir, else $DBARENA_WORK, else $TMPDIR/dbarena (see Root).
// Clean removes the directories of dead owners after killing any server
// of theirs that survived them; a live owner's directory is never touched.
package workdir

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dbarena/dbarena/internal/procid"
)

// EnvVar is the environment variable that moves the root.
const EnvVar = "DBARENA_WORK"

// Kinds of directory under the root, one subdirectory each.
const (
	Local     = "local"
	Loaders   = "loaders"
	Reference = "reference"
)

// Kinds lists the subdirectories Scan and Clean look in.
func Kinds() []string { return []string{Local, Loaders, Reference} }

// OwnerFile is the owner file's name inside a claimed directory.
const OwnerFile = "owner.json"

// Root is the configuration precedence of the root, lowest first: the
// system's temporary directory ($TMPDIR, else /tmp) joined with
// "dbarena", then $DBARENA_WORK, then the --work-dir flag.
func Root(flag string, getenv func(string) string) string {
	if flag != "" {
		return flag
	}
	if getenv != nil {
		if v := getenv(EnvVar); v != "" {
			return v
		}
	}
	return Default()
}

// Default is the root when neither flag nor environment names one.
func Default() string { return filepath.Join(os.TempDir(), "dbarena") }

// Owner is the content of a claimed directory's owner file.
type Owner struct {
	// Process made the directory; while it runs, the directory is in use.
	Process procid.ID `json:"process"`
	// Name says what the directory is for ("postgres", "trial").
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
	// Keep asks that the directory outlive its owner (--keep): Clean
	// removes it only when told to remove kept directories too.
	Keep bool `json:"keep,omitempty"`
	// Servers are the processes the owner started that must not outlive
	// it. They die with it by the parent-death signal; Clean kills any
	// that did not.
	Servers []Server `json:"servers,omitempty"`
}

// Server is one process a directory's owner started.
type Server struct {
	Name    string    `json:"name"`
	Process procid.ID `json:"process"`
}

// Dir is a directory this process claimed. Its methods are safe for
// concurrent use.
type Dir struct {
	// Path is the directory.
	Path  string
	mu    sync.Mutex
	owner Owner
}

// Claim makes ROOT/kind/PID-name-RANDOM, owned by this process, with mode
// 0700. The directory appears with its owner file already in it (made
// under a hidden name, then renamed), so Clean never sees it without one.
func Claim(root, kind, name string, keep bool) (*Dir, error) {
	self, err := procid.Self()
	if err != nil {
		return nil, fmt.Errorf("work directory: %w", err)
	}
	parent, err := kindDir(root, kind)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, ".claim-")
	if err != nil {
		return nil, fmt.Errorf("work directory: %w", err)
	}
	var suffix [4]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("work directory: %w", err)
	}
	d := &Dir{Path: filepath.Join(parent, fmt.Sprintf("%d-%s-%s", self.PID, safeName(name), hex.EncodeToString(suffix[:]))),
		owner: Owner{Process: self, Name: name, Created: time.Now().UTC(), Keep: keep}}
	if err := writeOwner(tmp, &d.owner); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, d.Path); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("work directory: %w", err)
	}
	return d, nil
}

// kindDir makes ROOT/kind, searchable by other users: a server that
// drops root (postgres) must reach its directory below it.
func kindDir(root, kind string) (string, error) {
	if err := Ensure(root); err != nil {
		return "", err
	}
	p := filepath.Join(root, kind)
	if err := os.MkdirAll(p, 0o755); err != nil {
		return "", fmt.Errorf("work directory: %w", err)
	}
	return p, nil
}

// Ensure makes the root when missing and refuses one that is a symbolic
// link or belongs to another user: in a shared /tmp, another user could
// otherwise choose where this process writes and what Clean removes.
func Ensure(root string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("work directory %s: %w", root, err)
	}
	fi, err := os.Lstat(root)
	if err != nil {
		return fmt.Errorf("work directory %s: %w", root, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("work directory %s is not a directory (a symbolic link?); set %s or --work-dir", root, EnvVar)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() && st.Uid != 0 {
		return fmt.Errorf("work directory %s belongs to user %d, not to this one (%d); set %s or --work-dir", root, st.Uid, os.Geteuid(), EnvVar)
	}
	return nil
}

// safeName keeps a name to characters safe in a file name.
func safeName(s string) string {
	if s == "" {
		return "_"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_':
			return r
		}
		return '_'
	}, s)
}

// AddServer records a process the owner started, so that Clean can kill
// it should it outlive its owner.
func (d *Dir) AddServer(name string, pid int) error {
	id, err := procid.Of(pid)
	if err != nil {
		return fmt.Errorf("work directory %s: server %s: %w", d.Path, name, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.owner.Servers = append(d.owner.Servers, Server{Name: name, Process: id})
	return writeOwner(d.Path, &d.owner)
}

// Remove deletes the directory and everything in it.
func (d *Dir) Remove() error {
	if err := os.RemoveAll(d.Path); err != nil {
		return fmt.Errorf("work directory: %w", err)
	}
	return nil
}

// writeOwner replaces dir's owner file atomically: a reader sees the old
// file or the new one, never half of one.
func writeOwner(dir string, o *Owner) error {
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return fmt.Errorf("work directory: owner file: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+OwnerFile+".*")
	if err != nil {
		return fmt.Errorf("work directory: owner file: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	_, werr := tmp.Write(append(b, '\n'))
	if err := errors.Join(werr, tmp.Chmod(0o644), tmp.Close()); err != nil {
		return fmt.Errorf("work directory: owner file: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, OwnerFile)); err != nil {
		return fmt.Errorf("work directory: owner file: %w", err)
	}
	return nil
}

// readOwner reads dir's owner file.
func readOwner(dir string) (*Owner, error) {
	b, err := os.ReadFile(filepath.Join(dir, OwnerFile))
	if err != nil {
		return nil, err
	}
	var o Owner
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, OwnerFile), err)
	}
	if o.Process.PID <= 0 {
		return nil, fmt.Errorf("%s: no owner process", filepath.Join(dir, OwnerFile))
	}
	return &o, nil
}

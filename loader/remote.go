package loader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Remote is a loader reached through a command prefix (ssh host, ip
// netns exec ns, kubectl exec pod --), with a directory of its own on
// the other side: it may not share this file system, and nothing but sh
// and cat is needed there.
type Remote struct {
	Prefix []string
	Dir    string
}

// Path is the file name in the loader's directory.
func (r *Remote) Path(name string) string { return r.Dir + "/" + name }

// Command is the argv that runs args through the prefix. ssh does not
// pass an argv: it joins its words with spaces for the remote shell to
// split again, so behind ssh each word is quoted for that shell; other
// prefixes (ip netns exec, docker exec, kubectl exec --) exec the argv
// as it is.
func (r *Remote) Command(args ...string) []string {
	argv := append([]string(nil), r.Prefix...)
	if !remoteShell(r.Prefix) {
		return append(argv, args...)
	}
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return append(argv, strings.Join(q, " "))
}

// remoteShell says whether a prefix hands its command to a remote shell
// as one string: ssh, autossh and gcloud compute ssh, also behind sudo
// or env (whose own flags and settings come first).
func remoteShell(prefix []string) bool {
	for i, w := range prefix {
		switch filepath.Base(w) {
		case "ssh", "autossh":
			return true
		case "gcloud":
			compute := false
			for _, x := range prefix[i+1:] {
				compute = compute || x == "compute"
				if compute && x == "ssh" {
					return true
				}
			}
			return false
		}
		if i == 0 && filepath.Base(w) != "sudo" && filepath.Base(w) != "env" {
			// The program itself, and not one of the above.
			return false
		}
	}
	return false
}

// shellQuote quotes a word for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sh runs a shell command through the prefix, with stdin from a file
// when given.
func (r *Remote) sh(ctx context.Context, script string, stdin *os.File, stdout *os.File) error {
	argv := r.Command("sh", "-c", script)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var errb strings.Builder
	cmd.Stderr = &errb
	if stdin != nil {
		cmd.Stdin = stdin
	}
	if stdout != nil {
		cmd.Stdout = stdout
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, Tail(errb.String(), 400))
	}
	return nil
}

// Stage creates the directory (its owner's only) and copies the binary
// and the properties, which hold resolved secrets, into it as dbarena
// and trial.properties.
func (r *Remote) Stage(ctx context.Context, bin, props string) error {
	for _, c := range []struct{ from, to, mode string }{{bin, "dbarena", "700"}, {props, "trial.properties", "600"}} {
		f, err := os.Open(c.from)
		if err != nil {
			return err
		}
		err = r.sh(ctx, fmt.Sprintf("umask 077 && mkdir -p %s && cat > %s && chmod %s %s", r.Dir, r.Path(c.to), c.mode, r.Path(c.to)), f, nil)
		f.Close()
		if err != nil {
			return fmt.Errorf("copy %s to the loader: %w", c.to, err)
		}
	}
	return nil
}

// Fetch copies a file of the loader's directory here.
func (r *Remote) Fetch(ctx context.Context, name, to string) error {
	f, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	err = r.sh(ctx, "cat "+r.Path(name), nil, f)
	return errors.Join(err, f.Close())
}

// Clean removes the loader's directory; a failure leaves a directory in
// the other side's /tmp, nothing more.
func (r *Remote) Clean() {
	ctx, cancel := context.WithTimeout(context.Background(), cleanWait)
	defer cancel()
	_ = r.sh(ctx, "rm -rf "+r.Dir, nil, nil)
}

// cleanWait bounds removing a loader's directory: a host that no longer
// answers (its link cut) must not hold the experiment.
const cleanWait = 10 * time.Second

// Tail is the end of a loader's output, at most n bytes, for an error
// message.
func Tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return s
}

package deploy

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// stderrTail bounds how much of a failed program's standard error an
// error carries: its last lines say why.
const stderrTail = 800

// Run runs a provider's program (docker compose, kubectl, tofu) and
// returns its standard output. A failure names the program and its
// arguments and ends with the tail of its standard error.
func Run(cmd *exec.Cmd) ([]byte, error) {
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if len(msg) > stderrTail {
			msg = "..." + msg[len(msg)-stderrTail:]
		}
		return out.Bytes(), fmt.Errorf("%s %s: %w: %s", filepath.Base(cmd.Path), strings.Join(cmd.Args[1:], " "), err, msg)
	}
	return out.Bytes(), nil
}

// WriteFile writes data to dir/name with mode, making dir and name's
// own directories (their owner's only) when missing: how providers write
// what they render.
func WriteFile(dir, name string, data []byte, mode os.FileMode) error {
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, data, mode)
}

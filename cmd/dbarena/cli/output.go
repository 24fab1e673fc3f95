package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/trial"
)

// stdoutPath names standard output wherever a flag or property names a
// file dbarena writes (--json, --hdr-log, --export, merge --out and
// --json, keys --csv), as in most Unix tools: "--json -" pipes the
// summary on instead of creating a file called "-".
const stdoutPath = results.StdoutPath

// output is a flag naming a file a command writes, and its value.
type output struct{ flag, path string }

// textWriter returns where a command's human-readable text goes when one
// of outs may take standard output: there by default, to standard error
// once an output is "-", so that what is piped on stays one document a
// program can parse. Two outputs cannot share standard output, nor a
// file, and every file must be writable: all checked before the work,
// not found at its end.
func textWriter(st *State, outs ...output) (io.Writer, error) {
	if err := checkOutputs(outs); err != nil {
		return nil, err
	}
	var took []string
	for _, o := range outs {
		if o.path == stdoutPath {
			took = append(took, o.flag)
		}
	}
	switch len(took) {
	case 0:
		return st.Stdout, nil
	case 1:
		return st.Stderr, nil
	}
	return nil, usageError(fmt.Errorf("%s all name standard output (-); at most one output can", strings.Join(took, ", ")))
}

// checkOutputs refuses two outputs naming one file (`--json F
// --hdr-log F --export F` left F holding the JSON alone) and a file that
// cannot be written (a read-only --json was found only after the run).
// A regular file or a path not there yet is opened for writing, without
// truncating, and what did not exist is removed again; anything else (a
// device such as /dev/null, a FIFO another program reads) is left to the
// write itself.
func checkOutputs(outs []output) error {
	type seen struct {
		flag string
		info os.FileInfo
	}
	byPath := map[string]seen{}
	for _, o := range outs {
		if o.path == "" || o.path == stdoutPath {
			continue
		}
		abs, err := filepath.Abs(o.path)
		if err != nil {
			return usageError(fmt.Errorf("%s %s: %w", o.flag, o.path, err))
		}
		info, statErr := os.Stat(abs)
		for p, s := range byPath {
			if p == abs || (info != nil && s.info != nil && os.SameFile(info, s.info)) {
				return usageError(fmt.Errorf("%s and %s both name %s: each output needs a file of its own", s.flag, o.flag, o.path))
			}
		}
		byPath[abs] = seen{o.flag, info}
		if statErr == nil && !info.Mode().IsRegular() {
			if info.IsDir() {
				return usageError(fmt.Errorf("%s %s: is a directory; want a file to write", o.flag, o.path))
			}
			continue
		}
		f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return usageError(fmt.Errorf("%s %s: cannot be written: %w", o.flag, o.path, err))
		}
		_ = f.Close() // opened only to check; nothing was written
		if statErr != nil {
			_ = os.Remove(abs) // created by the check alone
		}
	}
	return nil
}

// ycsbText returns where the YCSB text goes when --export names no file:
// stdout, unless the JSON summary or the HdrHistogram log took it.
func ycsbText(st *State, rs trial.Settings) (io.Writer, error) {
	w, err := textWriter(st, output{"--json (json.output)", rs.JSONOut}, output{"--hdr-log (hdr.log)", rs.HdrLog},
		output{"--export (exportfile)", rs.ExportFile})
	if err != nil || rs.ExportFile == stdoutPath {
		// "--export -" asks for the text on stdout: it took it itself.
		return st.Stdout, err
	}
	return w, nil
}

// openOutput opens path for writing: def when path is empty, st.Stdout
// for "-" (neither is closed), else the file, created or truncated.
func openOutput(st *State, path string, def io.Writer) (io.Writer, func() error, error) {
	switch path {
	case "":
		return def, func() error { return nil }, nil
	case stdoutPath:
		return st.Stdout, func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, usageError(fmt.Errorf("create output file: %w", err))
	}
	return f, f.Close, nil
}

// createHlog starts the HdrHistogram log at path, "-" being st.Stdout.
func createHlog(st *State, path, comment string) (*runner.HlogObserver, error) {
	if path == stdoutPath {
		return runner.NewHlog(st.Stdout, time.Now(), comment)
	}
	return runner.CreateHlog(path, time.Now(), comment)
}

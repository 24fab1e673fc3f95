package cli

import (
	"io"
	"log/slog"
	"os"
)

// State is everything a command reads from or writes to the process, so the
// CLI can run in-process in tests.
type State struct {
	// Stdin is read by commands given "-" as a file.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads an environment variable.
	Getenv func(string) string
	// Logger receives warnings and diagnostics; it writes to Stderr.
	Logger *slog.Logger
	// StderrIsTerminal enables the live one-line progress display.
	StderrIsTerminal bool
}

// NewState returns the state of the running process.
func NewState() *State {
	s := &State{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		s.StderrIsTerminal = true
	}
	s.Logger = newLogger(s.Stderr)
	return s
}

// newLogger writes "level message key=value" lines without timestamps:
// they go to a terminal or a CI log, which have their own.
func newLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		},
	}))
}

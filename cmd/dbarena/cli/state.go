package cli

import (
	"io"
	"log/slog"
	"os"

	"github.com/dbarena/dbarena/internal/redact"
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
	// Abort is closed by a second interrupt: stop at once, writing what
	// was measured without waiting for anything (see WatchSignals). Nil
	// never closes.
	Abort <-chan struct{}
	// Secrets learns the credentials a command resolves (secret-named
	// properties, connection-string passwords, the values of ${env:...}
	// and ${file:...} references). Main hides them in everything the
	// command writes: Stdout, Stderr, the Logger's records, its error.
	Secrets *redact.Redactor
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

// redacting returns a copy of st whose Stdout, Stderr and Logger hide
// every secret its Secrets learns, also those learned after this call.
func (st *State) redacting() *State {
	c := *st
	if c.Secrets == nil {
		c.Secrets = redact.New()
	}
	c.Stdout = c.Secrets.Writer(st.Stdout)
	c.Stderr = c.Secrets.Writer(st.Stderr)
	if st.Logger != nil {
		c.Logger = slog.New(c.Secrets.Handler(st.Logger.Handler()))
	} else {
		c.Logger = newLogger(c.Stderr)
	}
	return &c
}

// newLogger writes human messages ("dbarena: warning: ...") at info
// level and above, without timestamps: they go to a terminal or a CI
// log, which have their own. --log-format and --log-level replace it
// before a command runs (addLogFlags).
func newLogger(w io.Writer) *slog.Logger {
	return slog.New(newHumanHandler(w, slog.LevelInfo))
}

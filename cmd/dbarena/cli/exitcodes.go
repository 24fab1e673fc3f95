package cli

// Exit codes of the dbarena command. They are part of the interface: scripts
// and CI jobs branch on them, so existing values never change meaning.
const (
	// ExitOK: the command did what it was asked.
	ExitOK = 0
	// ExitFailure: the command started but failed, e.g. the database could
	// not be reached or a session could not be opened.
	ExitFailure = 1
	// ExitUsage: bad input: an unknown flag, command or driver, a property
	// with a bad value, a missing or unreadable file. Nothing was run.
	ExitUsage = 2
	// ExitSlower: dbarena compare --fail-on-slower found a change that
	// is slower beyond the repetitions' noise.
	ExitSlower = 3
	// ExitInterrupted: SIGINT or SIGTERM stopped a run; everything measured
	// until then was written and marked interrupted.
	ExitInterrupted = 130
)

// exitError carries an exit code through cobra's error return.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks err as bad input.
func usageError(err error) error { return &exitError{code: ExitUsage, err: err} }

//go:build !linux

package clock

// newPreciseTimer falls back to a coarse timer: dbarena's precise
// wake-ups use Linux's timerfd.
func newPreciseTimer(*wakeEstimate, *dispatcher) (Timer, error) { return newCoarseTimer(), nil }

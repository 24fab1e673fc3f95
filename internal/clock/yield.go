package clock

import "runtime"

// spinYield gives the processor to other goroutines while a short wait runs
// out.
func spinYield() { runtime.Gosched() }

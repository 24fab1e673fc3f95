package measure

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range: 1 ns to one hour at three significant digits. An
// operation slower than an hour is recorded as an hour; the run's max would
// say so long before then.
const (
	lowestNs  = 1
	highestNs = int64(time.Hour)
	sigFigs   = 3
)

// NewHistogram returns an empty histogram with the range every recorder in
// dbarena uses, so histograms from any run, worker or loader can be merged
// without loss.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(lowestNs, highestNs, sigFigs)
}

// clampNs keeps v within the recordable range.
func clampNs(v int64) int64 {
	if v < 0 {
		return 0
	}
	if v > highestNs {
		return highestNs
	}
	return v
}

package tpcc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPacingBound: the mean cycle of keying and think times over the
// default mix bounds New-Orders per minute at 12.86 for 10 terminals,
// the specification's figure; the think times have their means and are
// truncated at 10 times them; a scale shortens both.
func TestPacingBound(t *testing.T) {
	p := NewPacing(1, 7)
	var cycle, share float64
	for k, s := range DefaultMix() {
		const n = 20_000
		var sum time.Duration
		for range n {
			d := p.Think(Kind(k))
			require.LessOrEqual(t, d, 10*Kind(k).MeanThink())
			sum += d
		}
		mean := sum / n
		require.InEpsilon(t, Kind(k).MeanThink().Seconds(), mean.Seconds(), 0.03, Kind(k).Name())
		cycle += s / 100 * (Kind(k).Keying() + Kind(k).MeanThink()).Seconds()
		share += s / 100
	}
	require.InDelta(t, 1, share, 1e-9)
	require.InDelta(t, MaxTpmCPerWarehouse, 10*60*0.45/cycle, 0.01)

	fast := NewPacing(0.01, 7)
	require.Equal(t, 180*time.Millisecond, fast.Keying(NewOrder))
	require.LessOrEqual(t, fast.Think(NewOrder), 1200*time.Millisecond)

	m, err := ParseMode("spec")
	require.NoError(t, err)
	require.Equal(t, Spec, m)
	_, err = ParseMode("paced")
	require.ErrorContains(t, err, `"paced": want spec`)
}

package generator_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"
)

// chiSquareP returns the p-value of observed counts against expected
// probabilities (which must sum to ~1) for n draws. Bins with tiny expected
// counts should be merged by the caller.
func chiSquareP(t *testing.T, observed []int64, probs []float64, n int64) float64 {
	t.Helper()
	require.Equal(t, len(observed), len(probs))
	stat := 0.0
	for i, o := range observed {
		e := probs[i] * float64(n)
		require.Greater(t, e, 5.0, "bin %d expects too few draws for chi-square", i)
		d := float64(o) - e
		stat += d * d / e
	}
	return distuv.ChiSquared{K: float64(len(observed) - 1)}.Survival(stat)
}

// newRand returns a fixed-seed source: statistical tests never flake.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// pThreshold is low enough that a correct generator with a fixed seed
// passes, high enough that a wrong shape (off by a few percent over 10^6
// draws) fails by many orders of magnitude.
const pThreshold = 1e-4

func requireRate(t *testing.T, want float64, hits, n int64, msg string) {
	t.Helper()
	p := float64(hits) / float64(n)
	sd := math.Sqrt(want * (1 - want) / float64(n))
	require.InDelta(t, want, p, 5*sd+1e-12, msg)
}

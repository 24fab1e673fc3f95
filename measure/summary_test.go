package measure_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/measure"
)

// TestPacingLateThreshold pins the pacing flag from both sides: the
// harness's lateness p99 above 100 µs and above a tenth of the service
// p99.
func TestPacingLateThreshold(t *testing.T) {
	for _, tc := range []struct {
		pacing, service float64
		late            bool
	}{
		{100.1, 500, true},
		{100, 500, false},
		{200.1, 2000, true},
		{200, 2000, false},
	} {
		require.Equal(t, tc.late, measure.PacingLate(measure.Stats{P99: tc.pacing}, measure.Stats{P99: tc.service}),
			"pacing p99 %v µs, service p99 %v µs", tc.pacing, tc.service)
	}
}

package measure_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/measure"
)

// TestPhaseJSONGolden pins the JSON shape of a phase: field names are a
// stable interface for scripts.
func TestPhaseJSONGolden(t *testing.T) {
	p := measure.NewPhase(time.Unix(1700000000, 0).UTC(), 2500*time.Millisecond, fixedResults(t))
	b, err := json.MarshalIndent(p, "", "  ")
	require.NoError(t, err)
	golden(t, "phase.json.golden", append(b, '\n'))
}

package compare

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJSONGolden freezes the JSON form of the report TestWriteGolden
// prints as text: CI gates parse these fields.
func TestJSONGolden(t *testing.T) {
	a, b := goldenRuns(t)
	r, err := Compare(a, b, 0)
	require.NoError(t, err)
	r.A, r.B = "runs/before", "runs/after" // not the temporary directories
	out, err := json.MarshalIndent(r.JSON(), "", "  ")
	require.NoError(t, err)
	golden(t, "report.json", string(out)+"\n")

	j := r.JSON()
	require.Equal(t, 0.95, j.Level)
	require.Equal(t, 0, j.Slower)
	one := j.Changes[len(j.Changes)-1]
	require.Equal(t, "redis", one.Target)
	require.Nil(t, one.Low, "one repetition: no interval, null rather than NaN")
	require.Nil(t, one.B.StdDev)
	require.NotNil(t, one.Change)
}

// TestJSONNothingToCompare keeps empty lists as [] for consumers.
func TestJSONNothingToCompare(t *testing.T) {
	r := &Report{A: "x", B: "y", OnlyInA: []Key{{Target: "pg", Workload: "a"}}}
	out, err := json.Marshal(r.JSON())
	require.NoError(t, err)
	require.JSONEq(t, `{"a":"x","b":"y","level":0,"changes":[],"only_in_a":[{"target":"pg","workload":"a","params":""}],"only_in_b":[],"warnings":[],"slower":0}`, string(out))
}

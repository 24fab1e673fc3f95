package results

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTrialStats(t *testing.T) {
	d, err := Read(filepath.Join("testdata", "golden", "format2", "sweep"))
	require.NoError(t, err)
	var row *Trial
	for i := range d.Trials {
		if d.Trials[i].ID == "fast.c.threads=4.rep1" {
			row = &d.Trials[i]
		}
	}
	require.NotNil(t, row)
	s, ok, err := d.TrialStats(row.ID)
	require.NoError(t, err)
	require.True(t, ok)
	// The same histograms as the row: its percentiles agree.
	require.InDelta(t, row.Latency.P999, s.P999, 1e-6)
	require.InDelta(t, row.Latency.Max, s.Max, 1e-6)
	require.GreaterOrEqual(t, s.P9999, s.P999)
	require.LessOrEqual(t, s.P9999, s.Max)

	_, ok, err = d.TrialStats("no-such-trial")
	require.NoError(t, err)
	require.False(t, ok)
}

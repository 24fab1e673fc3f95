package keystats_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/keystats"
)

func TestSummarize(t *testing.T) {
	c := keystats.New(10)
	// Record 3 drawn 6 times, record 7 three times, record 0 once.
	for _, k := range []int64{3, 3, 3, 3, 3, 3, 7, 7, 7, 0} {
		require.True(t, c.Add(k))
	}
	require.False(t, c.Add(10), "out of range")
	ranked := c.Ranked()
	require.Equal(t, []uint32{6, 3, 1, 0}, ranked[:4])
	rep := keystats.Summarize(ranked, c.Draws(), []int64{1, 2, 100})
	require.Equal(t, int64(3), rep.Distinct)
	require.InDelta(t, 0.6, rep.Top[0].Share, 1e-12)
	require.InDelta(t, 0.9, rep.Top[1].Share, 1e-12)
	require.InDelta(t, 1.0, rep.Top[2].Share, 1e-12, "k beyond the record count")
	require.InDelta(t, 0.9, rep.Quantiles[3].Share, 1e-12, "20% of 10 records = the top 2")

	var buf bytes.Buffer
	require.NoError(t, keystats.WriteCSV(&buf, ranked))
	require.Equal(t, "rank,frequency\n1,6\n2,3\n3,1\n", buf.String())
	buf.Reset()
	require.NoError(t, rep.Write(&buf))
	require.Contains(t, buf.String(), "distinct records drawn  3 (30.00%)")
}

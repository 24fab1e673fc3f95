package keystats_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/keystats"
)

func TestSummarize(t *testing.T) {
	// Dense (no more records than draws) and sparse (more records) tables
	// must say the same.
	for name, records := range map[string]int64{"dense": 10, "sparse": 11} {
		t.Run(name, func(t *testing.T) {
			c, err := keystats.New(records, 10)
			require.NoError(t, err)
			// Record 3 drawn 6 times, record 7 three times, record 0 once.
			for _, k := range []int64{3, 3, 3, 3, 3, 3, 7, 7, 7, 0} {
				require.True(t, c.Add(k))
			}
			require.False(t, c.Add(records), "out of range")
			require.False(t, c.Add(-1), "out of range")
			ranked := c.Ranked()
			require.Equal(t, []uint32{6, 3, 1}, ranked, "records never drawn are left out")
			rep := keystats.Summarize(ranked, 10, c.Draws(), []int64{1, 2, 100})
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
		})
	}
}

func TestSummarizeOutOfRangeTopDoesNotPanic(t *testing.T) {
	rep := keystats.Summarize([]uint32{2, 1}, 5, 3, []int64{-5, 0, 1 << 62})
	require.Zero(t, rep.Top[0].Share)
	require.Zero(t, rep.Top[1].Share)
	require.InDelta(t, 1.0, rep.Top[2].Share, 1e-12)
}

func TestNew(t *testing.T) {
	for name, c := range map[string]struct {
		records, draws int64
		want           string
	}{
		"a billion records":   {records: 1_000_000_000, draws: 1000},
		"max int64 records":   {records: 1<<63 - 1, draws: 1000},
		"max draws":           {records: 10, draws: keystats.MaxDraws},
		"no records":          {records: 0, draws: 10, want: "records 0: want at least 1"},
		"no draws":            {records: 10, draws: 0, want: "draws 0: want 1 to 100000000"},
		"too many draws":      {records: 10, draws: keystats.MaxDraws + 1, want: "draws 100000001: want 1 to 100000000"},
		"negative draw count": {records: 10, draws: -1, want: "draws -1: want 1 to 100000000"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := keystats.New(c.records, c.draws)
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, c.want)
		})
	}
}

// BenchmarkCounts measures the memory of counting draws: it grows with the
// draws, not with the records (before, records=1e9 needed 16 GB).
func BenchmarkCounts(b *testing.B) {
	for _, c := range []struct{ records, draws int64 }{
		{1_000_000, 1_000_000}, {1_000_000_000, 1_000_000}, {1<<63 - 1, 1_000_000},
	} {
		b.Run(fmt.Sprintf("records=%d/draws=%d", c.records, c.draws), func(b *testing.B) {
			b.ReportAllocs()
			r := rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				counts, err := keystats.New(c.records, c.draws)
				if err != nil {
					b.Fatal(err)
				}
				for range c.draws {
					counts.Add(r.Int64N(c.records))
				}
				keystats.Summarize(counts.Ranked(), c.records, counts.Draws(), []int64{1, 10, 100})
			}
		})
	}
}

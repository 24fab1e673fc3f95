// Package keystats measures how a request distribution spreads draws over
// records: the frequency of each record, the share of draws that hit the
// most popular records and the frequency-rank curve. The ScyllaDB vs
// DynamoDB study had to patch YCSB to see these figures; dbarena prints them
// with `dbarena keys`.
package keystats

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// MaxDraws bounds the draws of one Counts. Counts are uint32, and the
// table holds at most one entry per draw: about 40 bytes in a map, so
// 100,000,000 draws of a uniform distribution over more records need up
// to 4 GiB, and take about 10 s to draw.
const MaxDraws = 100_000_000

// Counts holds how often each record was drawn. Its memory grows with the
// number of distinct records drawn, never with the record count: a map
// from record to count, or, when there are no more records than draws
// (so most will be drawn anyway), a dense array of 4 bytes per record.
// YCSB's billion records used to need 16 GB here whatever the draws.
type Counts struct {
	records int64
	dense   []uint32
	sparse  map[int64]uint32
	draws   int64
}

// New returns counts for records numbered 0..records-1 and up to draws
// draws.
func New(records, draws int64) (*Counts, error) {
	switch {
	case records < 1:
		return nil, fmt.Errorf("records %d: want at least 1", records)
	case draws < 1 || draws > MaxDraws:
		return nil, fmt.Errorf("draws %d: want 1 to %d", draws, MaxDraws)
	}
	c := &Counts{records: records}
	if records <= draws {
		c.dense = make([]uint32, records)
	} else {
		c.sparse = make(map[int64]uint32)
	}
	return c, nil
}

// Add counts one draw of record k; draws outside the range are ignored and
// reported by Add's result.
func (c *Counts) Add(k int64) bool {
	if k < 0 || k >= c.records {
		return false
	}
	if c.dense != nil {
		c.dense[k]++
	} else {
		c.sparse[k]++
	}
	c.draws++
	return true
}

// Draws returns the number of counted draws.
func (c *Counts) Draws() int64 { return c.draws }

// Records returns the record count.
func (c *Counts) Records() int64 { return c.records }

// Ranked returns the frequencies of the records drawn at least once,
// sorted from the most drawn down.
func (c *Counts) Ranked() []uint32 {
	var r []uint32
	if c.dense != nil {
		for _, f := range c.dense {
			if f > 0 {
				r = append(r, f)
			}
		}
	} else {
		r = make([]uint32, 0, len(c.sparse))
		for _, f := range c.sparse {
			r = append(r, f)
		}
	}
	slices.SortFunc(r, func(a, b uint32) int { return cmp.Compare(b, a) })
	return r
}

// Report is the summary of a key distribution.
type Report struct {
	Records  int64 `json:"records"`
	Draws    int64 `json:"draws"`
	Distinct int64 `json:"distinct"`
	// Top holds, for each k asked for, the share of draws that hit the k
	// most drawn records.
	Top []Share `json:"top"`
	// Quantiles holds the same for fractions of the record count.
	Quantiles []Share `json:"quantiles"`
}

// Share is the share of draws hitting the Items most drawn records.
type Share struct {
	Label string  `json:"label"`
	Items int64   `json:"records"`
	Share float64 `json:"share"`
}

// Summarize builds a report for the given top-k list from the ranked
// frequencies (Counts.Ranked: records never drawn may be left out) of
// draws over records.
func Summarize(ranked []uint32, records, draws int64, top []int64) Report {
	rep := Report{Records: records, Draws: draws}
	cum := make([]int64, len(ranked)+1)
	for i, f := range ranked {
		cum[i+1] = cum[i] + int64(f)
		if f > 0 {
			rep.Distinct++
		}
	}
	share := func(items int64) float64 {
		if draws == 0 {
			return 0
		}
		items = max(0, min(items, int64(len(ranked))))
		return float64(cum[items]) / float64(draws)
	}
	for _, k := range top {
		rep.Top = append(rep.Top, Share{Label: fmt.Sprint(k), Items: k, Share: share(k)})
	}
	for _, q := range []float64{0.001, 0.01, 0.1, 0.2, 0.5, 1} {
		items := int64(q * float64(records))
		if items < 1 {
			items = 1
		}
		rep.Quantiles = append(rep.Quantiles, Share{Label: fmt.Sprintf("%g%%", q*100), Items: items, Share: share(items)})
	}
	return rep
}

// Write prints the report as two aligned tables.
func (r Report) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "records\t%d\ndraws\t%d\ndistinct records drawn\t%d (%.2f%%)\n\n", r.Records, r.Draws, r.Distinct, pct(r.Distinct, r.Records))
	fmt.Fprintln(tw, "top k records\tshare of draws")
	for _, s := range r.Top {
		fmt.Fprintf(tw, "%s\t%.3f%%\n", s.Label, s.Share*100)
	}
	fmt.Fprintln(tw, "\nmost drawn fraction of records\trecords\tshare of draws")
	for _, s := range r.Quantiles {
		fmt.Fprintf(tw, "%s\t%d\t%.3f%%\n", s.Label, s.Items, s.Share*100)
	}
	return tw.Flush()
}

func pct(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b) * 100
}

// WriteCSV writes "rank,frequency" for every record drawn at least once,
// rank 1 being the most drawn.
func WriteCSV(w io.Writer, ranked []uint32) error {
	if _, err := io.WriteString(w, "rank,frequency\n"); err != nil {
		return err
	}
	for i, f := range ranked {
		if f == 0 {
			break
		}
		if _, err := fmt.Fprintf(w, "%d,%d\n", i+1, f); err != nil {
			return err
		}
	}
	return nil
}

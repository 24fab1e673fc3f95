package results

import (
	"fmt"
	"path/filepath"

	"github.com/dbarena/dbarena/measure"
)

// TrialStats returns the latency of trial id over its measured (not
// warm-up) intervals, merged from hdr/ID.hlog (or from its loaders' logs
// a killed run left unmerged) as the trial row's own percentiles are, in
// microseconds: the figures trials.csv has no column for, such as p99.99. ok is false when the log is missing or holds no
// measured interval.
func (d *Data) TrialStats(id string) (s measure.Stats, ok bool, err error) {
	path := filepath.Join(d.Dir, HdrDir, id+".hlog")
	hists, n, err := d.readLog(path, span{})
	if n == 0 {
		if h, m, _, _, ok := d.fromLoaderLogs(id, span{}); ok {
			hists, n, err = h, m, nil
		}
	}
	if n == 0 {
		return s, false, err
	}
	h := hists.all()
	if h.TotalCount() == 0 {
		return s, false, err
	}
	if err != nil {
		err = fmt.Errorf("trial %s: %w", id, err)
	}
	return measure.StatsOf(h), true, err
}

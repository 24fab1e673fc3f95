package report

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestResourcePanelsSayWhatTheyMeasure: the disk panel is the block
// devices' and says so; bytes dirtied in the page cache get a panel of
// their own, named for what they are, only when something was dirtied.
func TestResourcePanelsSayWhatTheyMeasure(t *testing.T) {
	d := fullFixture().write(t)
	s := summarize(d)
	labels := func(f *figure) []string {
		var out []string
		for _, p := range f.panels {
			out = append(out, p.Y.Label.Text)
		}
		return out
	}
	f := resourceFigure(d, s, newTimeline(d), "resources")
	require.Equal(t, []string{"ops/s", "p99 (ms)", "CPU (%)", "memory (bytes)", "disk (bytes/s)", "network (bytes/s)"}, labels(f),
		"nothing dirtied: no page-cache panel")
	require.Contains(t, f.Caption, "Disk: bytes the block devices read and wrote")
	require.NotContains(t, f.Caption, "Page cache dirtied")

	for i := range d.Sys {
		if d.Sys[i].Role == "database" {
			d.Sys[i].PageCacheWriteBps = 3e7
		}
	}
	f = resourceFigure(d, s, newTimeline(d), "resources")
	require.Equal(t, []string{"ops/s", "p99 (ms)", "CPU (%)", "memory (bytes)", "disk (bytes/s)", pageCacheLabel, "network (bytes/s)"}, labels(f))
	require.Contains(t, f.Caption, "Page cache dirtied: bytes processes wrote into the page cache")
	require.Contains(t, f.Caption, "not the disk's figure")
	c := chartOf(f)
	require.Equal(t, pageCacheLabel, c.Panels[5].Label, "the interactive chart says it too")
}

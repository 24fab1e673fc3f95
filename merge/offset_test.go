package merge_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/merge"
)

// fakeHost is a host whose clock runs skew ahead of ours and whose
// answers take the given round trips, half each way.
type fakeHost struct {
	now   time.Time
	skew  time.Duration
	trips []time.Duration
}

func (h *fakeHost) clock() time.Time { return h.now }

func (h *fakeHost) ask(context.Context) (time.Time, error) {
	rtt := h.trips[0]
	h.trips = h.trips[1:]
	h.now = h.now.Add(rtt / 2)
	remote := h.now.Add(h.skew)
	h.now = h.now.Add(rtt - rtt/2)
	return remote, nil
}

func TestMeasureOffset(t *testing.T) {
	h := &fakeHost{now: time.Unix(1_700_000_000, 0), skew: -37 * time.Millisecond,
		trips: []time.Duration{90 * time.Millisecond, 2 * time.Millisecond, 800 * time.Microsecond, 3 * time.Millisecond,
			time.Millisecond, time.Millisecond, time.Millisecond, time.Millisecond}}
	got, err := merge.MeasureOffset(context.Background(), h.ask, h.clock)
	require.NoError(t, err)
	require.Equal(t, merge.Offset{Offset: -37 * time.Millisecond, Uncertainty: 400 * time.Microsecond}, got, "the shortest round trip")

	fail := func(context.Context) (time.Time, error) { return time.Time{}, errors.New("broken pipe") }
	_, err = merge.MeasureOffset(context.Background(), fail, time.Now)
	require.ErrorContains(t, err, "clock exchange 1: broken pipe")
}

func TestMeasureCommand(t *testing.T) {
	// A shell that answers each line with this host's clock: offset 0,
	// within the round trip of a pipe.
	o, err := merge.MeasureCommand(context.Background(), []string{"sh", "-c", "while read l; do date +%s%N; done"})
	require.NoError(t, err)
	require.Less(t, o.Offset.Abs(), o.Uncertainty+5*time.Millisecond, "%+v", o)
}

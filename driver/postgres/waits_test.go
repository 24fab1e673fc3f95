package postgres

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
)

// TestWaitClasses pins the class of the wait events the verdict reads:
// the ones a WAL flush shows (the regression: LWLock:WALWrite was counted
// as a lock wait), row locks apart from other heavyweight locks, and
// waits that are no bottleneck of the server at all.
func TestWaitClasses(t *testing.T) {
	for _, tc := range []struct {
		typ, event, class string
	}{
		{"LWLock", "WALWrite", classWALFlush},
		{"LWLock", "WALBufMapping", classWALFlush},
		{"IO", "WALSync", classWALFlush},
		{"IO", "WALWrite", classWALFlush},
		{"IO", "WALInitSync", classWALFlush},
		{"Timeout", "CommitDelay", classWALFlush},
		{"Lock", "transactionid", classRowLock},
		{"Lock", "tuple", classRowLock},
		{"Lock", "relation", classLock},
		{"Lock", "extend", classLock},
		{"LWLock", "WALInsert", classLWLock},
		{"LWLock", "BufferMapping", classLWLock},
		{"LWLock", "LockManager", classLWLock},
		{"BufferPin", "BufferPin", classLWLock},
		{"IO", "DataFileRead", classIO},
		{"IO", "BufFileWrite", classIO},
		{"CPU", "", ""},
		{"Client", "ClientRead", ""},
		{"IPC", "SyncRep", ""},
		{"Timeout", "PgSleep", ""},
	} {
		require.Equal(t, tc.class, waitEvent{tc.typ, tc.event}.class(), "%s:%s", tc.typ, tc.event)
	}
}

// TestWaitMetrics checks one snapshot's figures, and that an event seen
// once is written as zero afterwards.
func TestWaitMetrics(t *testing.T) {
	var seen map[waitEvent]bool
	var w waitCounts
	w.add("LWLock", "WALWrite", 14)
	w.add("IO", "WALSync", 8)
	w.add("CPU", "", 11)
	w.add("Lock", "transactionid", 1)
	w.add("Idle", "", 6)
	got := map[string]driver.Metric{}
	for _, m := range w.metrics(&seen) {
		got[m.Name] = m
	}
	require.Equal(t, 34.0, got["pg_sessions_active"].Value)
	require.Equal(t, 40.0, got["pg_sessions"].Value, "idle sessions count in the whole")
	require.Equal(t, 22.0, got["pg_waiting_wal_flush"].Value)
	require.Equal(t, 1.0, got["pg_waiting_row_lock"].Value)
	require.Equal(t, 14.0, got["pg_sessions_lwlock"].Value, "the type's gauge counts every LWLock")
	require.Zero(t, got["pg_waiting_lwlock"].Value, "but no LWLock of that class")
	require.Equal(t, 14.0, got["pg_waiting_wal_flush_LWLock_WALWrite"].Value)
	require.Equal(t, driver.Metric{Name: "pg_wal_flush_wait_share", Kind: driver.MetricRatio,
		Part: "pg_waiting_wal_flush", Whole: "pg_sessions"}, got["pg_wal_flush_wait_share"])
	require.Equal(t, "pg_waiting_wal_flush_IO_WALSync", got["pg_wal_flush_wait_share_IO_WALSync"].Part)
	for name := range got {
		require.NotContains(t, name, "CPU_", "no per-event figure for a wait of no class")
	}

	var later waitCounts
	later.add("CPU", "", 3)
	again := map[string]float64{}
	for _, m := range later.metrics(&seen) {
		again[m.Name] = m.Value
	}
	v, ok := again["pg_waiting_wal_flush_LWLock_WALWrite"]
	require.True(t, ok, "an event seen before is written again")
	require.Zero(t, v)
}

package postgres

import (
	"sort"
	"strings"

	"github.com/dbarena/dbarena/driver"
)

// The classes of wait the bottleneck verdict (analysis/bottleneck) reads,
// each a set of pg_stat_activity wait events. A class's share of the
// benchmark database's client sessions is the figure
// pg_<class>_wait_share; each of its events' share is
// pg_<class>_wait_share_<Type>_<Event>, so that a verdict can name the
// events the server itself reported.
//
// The share is of every session, idle ones too, not of the active ones:
// a snapshot rarely catches a 50 µs read running but always catches a
// commit waiting milliseconds for its flush, so among the active
// sessions a read-mostly workload's few commits looked like "100%
// waiting on the WAL" (PostgreSQL, workload B, pinned to one core and at
// its CPU limit). Each session is one worker's connection, so its share
// of the sessions is the share of the workers' time spent in that wait. The sessions
// counted are pg_waiting_<class> and pg_waiting_<class>_<Type>_<Event>
// (pg_sessions_<type> counts by wait event type, as PostgreSQL groups
// them).
const (
	// classWALFlush: waiting for the commit's WAL to reach the disk:
	// writing and syncing it (IO:WALWrite, IO:WALSync, a new segment's
	// IO:WALInit*), waiting for the session that does (LWLock:WALWrite),
	// for a WAL buffer that must be written out first
	// (LWLock:WALBufMapping), or in commit_delay before the flush
	// (Timeout:CommitDelay, PostgreSQL 16 and later).
	classWALFlush = "wal_flush"
	// classRowLock: a row another transaction holds: its transaction id
	// (Lock:transactionid) or its tuple lock (Lock:tuple).
	classRowLock = "row_lock"
	// classLock: any other heavyweight lock (a relation, its extension,
	// an advisory lock...).
	classLock = "lock"
	// classLWLock: the server's internal locks other than the WAL's
	// (buffer mapping and content, the lock manager's partitions,
	// WALInsert...) and buffer pins: contention inside the server.
	classLWLock = "lwlock"
	// classIO: data file and temporary file I/O (not the WAL's).
	classIO = "io"
)

// waitEvent is one pg_stat_activity (wait_event_type, wait_event).
type waitEvent struct{ typ, event string }

// class is the class of wait e belongs to, "" for none (on the CPU,
// waiting for the client, idle in IPC...).
func (e waitEvent) class() string {
	switch e.typ {
	case "Lock":
		if e.event == "transactionid" || e.event == "tuple" {
			return classRowLock
		}
		return classLock
	case "LWLock":
		if e.event == "WALWrite" || e.event == "WALBufMapping" {
			return classWALFlush
		}
		return classLWLock
	case "BufferPin":
		return classLWLock
	case "IO":
		if strings.HasPrefix(e.event, "WAL") {
			return classWALFlush
		}
		return classIO
	case "Timeout":
		if e.event == "CommitDelay" {
			return classWALFlush
		}
	}
	return ""
}

// metricName is the event's part of a metric name, "LWLock_WALWrite":
// PostgreSQL's own spelling, so a reader finds it in the manual, with
// anything outside [A-Za-z0-9] turned into "_" (the wait event type
// never holds one, so the first "_" still splits the two).
func (e waitEvent) metricName() string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return '_'
		}, s)
	}
	return clean(e.typ) + "_" + clean(e.event)
}

// waitTypes are the wait event types pg_stat_activity reports, with the
// metric each one's session count goes to. Every one is written, zeros
// too, so that a wait that appears stands out against its own zero.
var waitTypes = []struct{ event, metric string }{
	{"CPU", "pg_sessions_cpu"},
	{"Lock", "pg_sessions_lock"},
	{"LWLock", "pg_sessions_lwlock"},
	{"BufferPin", "pg_sessions_bufferpin"},
	{"IO", "pg_sessions_io"},
	{"IPC", "pg_sessions_ipc"},
	{"Client", "pg_sessions_client"},
	{"Timeout", "pg_sessions_timeout"},
	{"Activity", "pg_sessions_activity"},
	{"Extension", "pg_sessions_extension"},
}

// waitClasses are the classes, in the order their metrics are written.
var waitClasses = []string{classWALFlush, classRowLock, classLock, classLWLock, classIO}

// idle is the wait "type" sessionStats gives a session with no
// statement running.
const idle = "Idle"

// waitCounts are one snapshot's sessions by wait event.
type waitCounts struct {
	byEvent         map[waitEvent]int64
	active, clients int64
}

func (w *waitCounts) add(typ, event string, n int64) {
	if w.byEvent == nil {
		w.byEvent = map[waitEvent]int64{}
	}
	w.clients += n
	if typ == idle {
		return
	}
	w.byEvent[waitEvent{typ, event}] += n
	w.active += n
}

// metrics are the snapshot's gauges and ratios. seen collects the
// classified events named so far; each is written from then on, zeros
// too, so that its share over a window is over every second of it.
func (w *waitCounts) metrics(seen *map[waitEvent]bool) []driver.Metric {
	if *seen == nil {
		*seen = map[waitEvent]bool{}
	}
	byType := map[string]int64{}
	byClass := map[string]int64{}
	for e, n := range w.byEvent {
		byType[e.typ] += n
		if c := e.class(); c != "" {
			byClass[c] += n
			(*seen)[e] = true
		}
	}
	var out []driver.Metric
	gauge := func(name string, v int64) {
		out = append(out, driver.Metric{Name: name, Kind: driver.MetricGauge, Value: float64(v)})
	}
	share := func(name, part string) {
		out = append(out, driver.Metric{Name: name, Kind: driver.MetricRatio, Part: part, Whole: "pg_sessions"})
	}
	for _, t := range waitTypes {
		gauge(t.metric, byType[t.event])
	}
	gauge("pg_sessions_active", w.active)
	gauge("pg_sessions", w.clients)
	for _, c := range waitClasses {
		gauge("pg_waiting_"+c, byClass[c])
		share("pg_"+c+"_wait_share", "pg_waiting_"+c)
	}
	events := make([]waitEvent, 0, len(*seen))
	for e := range *seen {
		events = append(events, e)
	}
	sort.Slice(events, func(i, j int) bool { return events[i].metricName() < events[j].metricName() })
	for _, e := range events {
		part := "pg_waiting_" + e.class() + "_" + e.metricName()
		gauge(part, w.byEvent[e])
		share("pg_"+e.class()+"_wait_share_"+e.metricName(), part)
	}
	return out
}

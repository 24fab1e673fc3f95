package results

import "time"

// Point is one row of timeseries.csv: one operation type (or "ALL") in
// one interval of a trial.
type Point struct {
	Trial   string
	Time    time.Time
	Elapsed time.Duration
	// Length is the interval's own length: shorter than the others for
	// the last one and for the two parts of the one the warm-up ended
	// in; its rates are per second of its own length.
	Length time.Duration
	Warmup bool
	Op     string
	// Ops counts completed operations, successful or failed, Errors the
	// failed ones and Aborted those the run's stop cut short.
	Ops     int64
	Errors  int64
	Aborted int64
	// Rate is successful operations per second (format 2; format 1
	// counted failed ones too), ErrorRate failed ones.
	Rate      float64
	ErrorRate float64
	Latency   Latency
	// Pacing is the harness's lateness in this interval, on the ALL row
	// of a paced run.
	Pacing PacingLateness
	// Stage is the schedule's stage, from 1; 0 for a run without stages.
	Stage int
}

// Sys is one row of sysmetrics.csv: the resource use of one host over
// the second ending at Time, and the trial that was running.
type Sys struct {
	Trial string
	Usage
}

// Usage is one host's or process tree's resource use over the interval
// (a second) ending at Time, as sysmetrics measures it and
// sysmetrics.csv holds it (its columns are named in sysColumns). NaN
// marks a figure the source cannot measure; a directory written before
// a column existed reads 0 for it (PageCacheWriteBps: see
// fromOldSysmetrics).
type Usage struct {
	Time time.Time
	// Host is the source's name, Role one of sysmetrics' Role constants.
	Host string
	Role string
	// CPUPercent is 100 for one core busy the whole interval, so four
	// busy cores read 400.
	CPUPercent float64
	// MemoryBytes is resident memory summed over a process tree, or the
	// memory in use (total - available) of a machine. It is a level at
	// Time, not a rate.
	MemoryBytes float64
	// DiskReadBps and DiskWriteBps are bytes per second read from and
	// written to the block devices: a machine's disks, or what a process
	// tree's cgroup sent to them (see NewProcessTree). Never bytes
	// dirtied in the page cache, which can exceed the disk many times:
	// a process tree without a cgroup of its own has DiskWriteBps NaN and
	// its dirtied bytes in PageCacheWriteBps.
	DiskReadBps, DiskWriteBps float64
	// PageCacheWriteBps is bytes per second a process tree dirtied in the
	// page cache, and wrote with direct I/O (/proc/PID/io write_bytes).
	// Pages are counted whole as they become dirty, large folios too: 8
	// KiB written into a clean 256 KiB folio count 256 KiB, so the WAL's
	// pattern of small writes each made durable reads 32 times what
	// reached the disk (2,048 MiB for 65.6 MiB written, Linux 6.18, ext4).
	// A measure of write activity, not of the disk; NaN for machines and
	// remote hosts.
	PageCacheWriteBps float64
	// DiskReadIOPS and DiskWriteIOPS are completed operations per second;
	// NaN for process trees: a cgroup counts the requests its processes
	// submit, before the block layer merges them (894 for 273 completed
	// reads measured), not operations of the disk.
	DiskReadIOPS, DiskWriteIOPS float64
	// DiskBusyPercent is the share of the interval the busiest disk had
	// I/O in flight (iostat's %util); NaN for process trees. Near 100 a
	// disk that serves one request at a time is saturated; an SSD that
	// serves many at once may not be.
	DiskBusyPercent float64
	// NetRxBps and NetTxBps are network bytes per second; NaN for process
	// trees, which have no network counters of their own.
	NetRxBps, NetTxBps float64
	// NetLink is the network interface of known capacity that carried
	// the largest share of it, NetLinkBps its bytes per second in its
	// busier direction and NetLinkCapacityBps its capacity: its speed or
	// the rate a tbf qdisc shapes it to, whichever is lower. "" and NaN
	// when no interface's capacity is known (loopback and veth have
	// none until shaped).
	NetLink                        string
	NetLinkBps, NetLinkCapacityBps float64
	// LeadThreadPercent is the share of the interval a process tree's
	// first thread (its root process's main thread) was on a CPU or
	// waiting for one (/proc/PID/schedstat), 100 for all of it; NaN for
	// machines and remote hosts. For a server that serves requests on
	// that one thread (Redis) it is the demand on its one core: a thread
	// that other processes keep waiting reads as less than busy in
	// CPUPercent (Redis on 1 MB updates beside the test servers: 89-94%
	// each second) while it never idles (100%).
	LeadThreadPercent float64
	// CoreBusyPercent and CoreStealPercent are a machine's cores, by
	// core number: each one's busy share of the interval (every mode but
	// idle and iowait, steal included; 100 = the whole core) and the
	// share the hypervisor gave to other machines (steal). nil for
	// process trees and remote hosts. They tell whose cores other
	// processes took (analysis/interference).
	CoreBusyPercent, CoreStealPercent map[int]float64
}

// DBMetric is one row of dbmetrics.csv: one figure a database reported
// about itself over the second ending at Time. Counters are written as
// per-second rates ("pg_commits_per_s"), gauges as read, ratios as
// fractions; the unit is in the name.
type DBMetric struct {
	Time     time.Time
	Trial    string
	Host     string
	Database string
	Metric   string
	Value    float64
	// Counter is, on a counter's rate row, the counter's own reading the
	// rate ended at (what a Prometheus counter serves), and Kind says
	// what the row is; neither is written to dbmetrics.csv, whose names
	// say it.
	Counter float64
	Kind    DBMetricKind
}

// DBMetricKind is what a DBMetric row holds.
type DBMetricKind string

// The kinds of DBMetric rows.
const (
	// DBMetricRate is a counter's per-second rate; its Counter is the
	// counter's reading.
	DBMetricRate DBMetricKind = "rate"
	// DBMetricGauge is a level as read.
	DBMetricGauge DBMetricKind = "gauge"
	// DBMetricRatio is a fraction of two figures of the same interval.
	DBMetricRatio DBMetricKind = "ratio"
)

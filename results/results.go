// Package results is the results directory of an experiment: the files a
// run writes as it goes and that the report, compare and analyze commands
// read back. It holds data only; nothing here talks to a database, so any
// results directory, however old, can be read and re-rendered.
//
// A directory holds:
//
//	manifest.json    tool version and commit, the spec as run, seeds, hosts,
//	                 database versions, start/end times, exit status
//	trials.csv       one row per trial (a load or a measured run)
//	timeseries.csv   per interval per trial: ops/s and latency per operation
//	sysmetrics.csv   per second per host: CPU, memory, disk, network
//	dbmetrics.csv    per second per database: its own metrics (cache hits,
//	                 lock waits, checkpoints...), one row per metric
//	hdr/ID.hlog      HdrHistogram interval logs, one per trial
//	report.html      the report, figures/ the figures as SVG and PNG
//
// Every CSV is appended and flushed after each row group, and the manifest
// is replaced atomically, so a killed run leaves consistent files.
package results

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/workload"
)

// File names inside a results directory.
const (
	ManifestFile   = "manifest.json"
	TrialsFile     = "trials.csv"
	TimeseriesFile = "timeseries.csv"
	SysmetricsFile = "sysmetrics.csv"
	DBMetricsFile  = "dbmetrics.csv"
	HdrDir         = "hdr"
	// LoaderLogs ends the name of the directory beside a trial's log,
	// hdr/ID.loaders, where the trial's loaders' own interval logs
	// (loader-N.hlog) and clock offsets (LoaderOffsetsFile) stream while
	// it runs. It is removed once their merge is in hdr/ID.hlog; a run
	// killed before that leaves it for Read to merge.
	LoaderLogs        = ".loaders"
	LoaderOffsetsFile = "clock-offsets.csv"
	ReportFile        = "report.html"
	FiguresDir        = "figures"
)

// Run statuses, in the manifest and in trial rows.
const (
	StatusRunning     = "running"
	StatusCompleted   = "completed"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
	// StatusSuperseded marks a trial row measured again: its throughput
	// moved within its window (not-steady) or other processes took its
	// cores (interfered), the experiment ran the step once more under
	// the ID AgainID gives, and this row stays on record but is left out
	// of every comparison.
	StatusSuperseded = "superseded"
)

// RetryID is the ID of a run step measured again after id was
// superseded: AgainID(id, 1).
func RetryID(id string) string { return AgainID(id, 1) }

// AgainID is the ID of the n-th measurement again of the step id (n from
// 1): "ID.retry", then "ID.retry2" ... (".retry": a rate search names its
// repeated probes ".tryN"). A load run again before a retry's run is
// named the same way after the load.
func AgainID(id string, n int) string {
	if n <= 1 {
		return id + ".retry"
	}
	return id + ".retry" + strconv.Itoa(n)
}

// Trial kinds.
const (
	KindLoad = "load"
	KindRun  = "run"
	// KindStage is one stage of a scheduled run (a spike), measured
	// from the stage's merged histograms; its run has a row of its own.
	KindStage = "stage"
)

// FormatVersion is the version of the results directory's format that
// this package writes. Version 2 counts only successful operations in the
// throughput and rate columns, where version 1 (manifests without a
// format) counted failed ones too; Read converts version 1 figures, so
// that old directories are judged the same way as new ones.
const FormatVersion = 2

// Manifest describes the whole experiment run.
type Manifest struct {
	// Format is the directory's FormatVersion; 0 for version 1.
	Format     int    `json:"format"`
	Tool       string `json:"tool"`
	Version    string `json:"version"`
	Commit     string `json:"commit,omitempty"`
	Experiment string `json:"experiment"`
	// SpecFile is the experiment file's path and Spec its text as run.
	SpecFile string     `json:"spec_file,omitempty"`
	Spec     string     `json:"spec,omitempty"`
	Seed     uint64     `json:"seed"`
	Start    time.Time  `json:"start"`
	End      *time.Time `json:"end,omitempty"`
	// Status is one of the Status constants; Error says why a run failed.
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// PID is the process that wrote the directory; Read takes a "running"
	// directory whose process is gone on this host for an interrupted one.
	// PIDStart (its start time in clock ticks since boot) and BootID tell
	// that process from a later one given the same PID; 0 and "" in
	// directories written before they were recorded.
	PID      int    `json:"pid,omitempty"`
	PIDStart uint64 `json:"pid_start,omitempty"`
	BootID   string `json:"boot_id,omitempty"`
	// PlannedSteps is the plan's length; CompletedSteps how many finished.
	PlannedSteps   int `json:"planned_steps"`
	CompletedSteps int `json:"completed_steps"`
	// SkippedSteps were left out: the rest of a client sweep run until
	// saturated, the steps of a target that did not deploy or whose load
	// failed.
	SkippedSteps int `json:"skipped_steps,omitempty"`
	// FailedSteps failed their error policy or could not start; the run
	// went on with the next.
	FailedSteps int          `json:"failed_steps,omitempty"`
	Loader      Host         `json:"loader"`
	Targets     []TargetInfo `json:"targets"`
	Warnings    []string     `json:"warnings,omitempty"`
	// Steps is the plan, so that a trial a kill cut short before its row
	// was written can be named and described from its intervals alone.
	Steps []Step `json:"steps,omitempty"`
	// SLO is the experiment's latency objective; nil: none.
	SLO *SLO `json:"slo,omitempty"`
	// Run is how the trials were run, for the report's account of the
	// design; nil in directories written before it was recorded.
	Run *RunDesign `json:"run,omitempty"`
	// Searches are the rate searches (run.until: slo), in the order
	// run; their probes are trials of their own.
	Searches []Search `json:"searches,omitempty"`
	// Goal is the load the experiment sized for (goal:); nil: none.
	Goal *Goal `json:"goal,omitempty"`
}

// Goal is a throughput to serve at the objective with headroom: the
// need is Throughput x (1 + Headroom).
type Goal struct {
	Throughput float64 `json:"throughput_ops_sec"`
	Headroom   float64 `json:"headroom,omitempty"`
}

// RunDesign is what the run section of the experiment asked of every
// trial.
type RunDesign struct {
	// DurationSeconds is each measured window (0: an operation count).
	DurationSeconds float64 `json:"duration_seconds,omitempty"`
	// WarmupSeconds is the warm-up, or its longest with WarmupSteady;
	// RepeatWarmupSeconds the warm-up of repetitions after the first
	// when that differed (results written before every repetition
	// warmed up until steady).
	WarmupSeconds       float64 `json:"warmup_seconds,omitempty"`
	WarmupSteady        bool    `json:"warmup_steady,omitempty"`
	RepeatWarmupSeconds float64 `json:"repeat_warmup_seconds,omitempty"`
	// PrewarmSeconds is the longest a target's warm-up may take (0:
	// none).
	PrewarmSeconds float64 `json:"prewarm_seconds,omitempty"`
	// Threads is every trial's workers, ThreadsAuto that a calibration
	// chose them per target (targets[].calibration).
	Threads     int  `json:"threads,omitempty"`
	ThreadsAuto bool `json:"threads_auto,omitempty"`
	Repetitions int  `json:"repetitions,omitempty"`
	// CommonThreads is the workers every target ran with when a
	// calibration chose per target and the targets ran side by side:
	// the most any target's calibration chose, so that every figure,
	// latency too, is read at the same concurrency (0: each target its
	// own).
	CommonThreads int `json:"common_threads,omitempty"`
	// Order is how the repetitions ran: "rounds" (each round visits
	// every target and workload once, in an order drawn from Seed) or
	// "sequential"; Together says every target was deployed at once, so
	// that the rounds alternate them, and Apart why they were not.
	Order    string `json:"order,omitempty"`
	Together bool   `json:"together,omitempty"`
	Apart    string `json:"apart,omitempty"`
	// RepetitionsAuto says rounds were added until every workload's
	// comparison was decided (at least Repetitions), within
	// BudgetSeconds; Rounds is how many ran, and Stopped why no more did.
	RepetitionsAuto bool    `json:"repetitions_auto,omitempty"`
	BudgetSeconds   float64 `json:"budget_seconds,omitempty"`
	Rounds          int     `json:"rounds,omitempty"`
	Stopped         string  `json:"stopped,omitempty"`
	// Equivalence is the margin within which two targets are
	// equivalent (0: analysis/decide's default).
	Equivalence float64 `json:"equivalence,omitempty"`
}

// Step is one load or measured trial of the plan, as the manifest lists
// it before it runs.
type Step struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Target names the target as in Targets; Workload the workload.
	Target   string `json:"target"`
	Workload string `json:"workload,omitempty"`
	// Params is the matrix point.
	Params     []Param `json:"params,omitempty"`
	Repetition int     `json:"repetition,omitempty"`
	Threads    int     `json:"threads,omitempty"`
	TargetRate float64 `json:"target_ops_sec,omitempty"`
}

// SLO is a latency objective sweeps are judged by, as the results
// record it (package analysis/objective judges a run by it).
type SLO struct {
	Bounds []SLOBound `json:"bounds"`
	// Achieved is the share of its target rate a rate-limited step must
	// reach to count as keeping up.
	Achieved float64 `json:"achieved"`
}

// SLOBound bounds one latency percentile ("p99") in milliseconds.
type SLOBound struct {
	Percentile string  `json:"percentile"`
	MaxMs      float64 `json:"max_ms"`
}

// String is "p99 <= 10 ms, p50 <= 2 ms".
func (s *SLO) String() string {
	parts := make([]string, len(s.Bounds))
	for i, b := range s.Bounds {
		parts[i] = fmt.Sprintf("%s <= %g ms", b.Percentile, b.MaxMs)
	}
	return strings.Join(parts, ", ")
}

// Host describes the machine that ran the load generator.
type Host struct {
	Hostname    string `json:"hostname"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	CPUs        int    `json:"cpus"`
	MemoryBytes int64  `json:"memory_bytes"`
	Kernel      string `json:"kernel,omitempty"`
}

// TargetInfo describes one deployed database as it was measured.
type TargetInfo struct {
	Name     string `json:"name"`
	Database string `json:"database"`
	Driver   string `json:"driver"`
	Provider string `json:"provider"`
	// Base and Size say which size of which target of the experiment
	// file this is, when the matrix axis size made it one of several
	// (Name is then BASE-SIZE); empty otherwise.
	Base string `json:"base,omitempty"`
	Size string `json:"size,omitempty"`
	// Version is the server's own version string.
	Version string `json:"version,omitempty"`
	Nodes   int    `json:"nodes"`
	// CPUs and MemoryBytes are the limits applied (0: none), Limits
	// how the provider enforced them ("1 CPU (cfs quota 100000/100000
	// us, cores 1), cgroup v1").
	CPUs        float64 `json:"cpus,omitempty"`
	MemoryBytes int64   `json:"memory_bytes,omitempty"`
	Limits      string  `json:"limits,omitempty"`
	// MachineType is a cloud VM's type (deploy.options.machine_type);
	// empty for other deployments.
	MachineType string `json:"machine_type,omitempty"`
	// DatabaseCores are the cores a pinned local database ran on and
	// LoaderCores the ones the load generator was kept to meanwhile
	// (empty: not pinned).
	DatabaseCores []int `json:"database_cores,omitempty"`
	LoaderCores   []int `json:"loader_cores,omitempty"`
	// Prewarm is the target's warm-up before its first run (nil: none
	// ran), Calibration how run.threads: auto chose its threads (nil: it
	// did not).
	Prewarm     *Prewarm     `json:"prewarm,omitempty"`
	Calibration *Calibration `json:"calibration,omitempty"`
	// Properties are the driver properties used, secrets redacted.
	Properties map[string]string `json:"properties,omitempty"`
	// Hosts are the sysmetrics host names that belong to this target.
	Hosts []string `json:"hosts,omitempty"`
	// DataBytes is the data directory's size on disk after the last load
	// (0: unknown); ServerMemoryBytes the server's peak memory seen.
	DataBytes         int64 `json:"data_bytes,omitempty"`
	ServerMemoryBytes int64 `json:"server_memory_bytes,omitempty"`
	// Native holds the database's own ratios over the target's whole
	// life, from its dbmetrics.csv samples ("pg_cache_hit_ratio"); older
	// directories hold figures read once after each trial
	// ("pg_buffer_hit_ratio").
	Native map[string]float64 `json:"native,omitempty"`
	// Cost is what the target would cost to run, as the experiment
	// priced it; nil: not priced.
	Cost *TargetCost `json:"cost,omitempty"`
	// Up and Down are when the deployment was ready and torn down.
	Up   time.Time  `json:"up"`
	Down *time.Time `json:"down,omitempty"`
}

// Prewarm is a target's warm-up before its first measured trial
// (run.prewarm): blocks of a few seconds on one of its workloads, until
// the last blocks agreed.
type Prewarm struct {
	// Workload is the workload it ran.
	Workload string `json:"workload"`
	// Threads ran it; Blocks are each block's throughput in ops/s.
	Threads int       `json:"threads"`
	Blocks  []float64 `json:"blocks_ops_sec"`
	// BlockSeconds is each block's length; SettleBlocks blocks in a row
	// had to agree within Spread (a fraction of their mean, for both
	// their drift and their coefficient of variation); Settled says
	// whether they did before the limit.
	BlockSeconds float64 `json:"block_seconds"`
	SettleBlocks int     `json:"settle_blocks,omitempty"`
	Spread       float64 `json:"spread,omitempty"`
	Settled      bool    `json:"settled"`
}

// Calibration is a ramp of threads run on a target before its first
// measured trial, and the count it chose for every run of the target.
type Calibration struct {
	// Workload is the workload the ramp ran (the target's first).
	Workload string `json:"workload"`
	// Points are the ramp's steps, in order.
	Points []CalibrationPoint `json:"points"`
	// Threads is the count chosen: the fewest whose throughput reached
	// Share of the highest.
	Threads int     `json:"threads"`
	Share   float64 `json:"share"`
	// Extended is how many of the last Points were measured after the
	// ramp stopped, up to the count another target's calibration chose
	// (for one count every target can run).
	Extended int `json:"extended,omitempty"`
}

// CalibrationPoint is one step of a calibration ramp: its threads, the
// throughput and p99 latency (µs) they reached.
type CalibrationPoint struct {
	Threads    int     `json:"threads"`
	Throughput float64 `json:"throughput"`
	P99        float64 `json:"p99_us"`
}

// TargetCost is a target's price, with the catalogue facts it came
// from, so that a results directory can be priced without its files.
type TargetCost struct {
	Resources []CostResource `json:"resources,omitempty"`
	// MonthlyUSD is the resources' cost for a 730-hour month.
	MonthlyUSD float64 `json:"monthly_usd,omitempty"`
	// DynamoDB, when set, prices the target as DynamoDB from its
	// measured operations, with ItemBytes per item and Items stored.
	DynamoDB  *DynamoDBPrices `json:"dynamodb,omitempty"`
	ItemBytes int             `json:"item_bytes,omitempty"`
	Items     int64           `json:"items,omitempty"`
	// Compiled and Sources date and source the price catalogue.
	Compiled string   `json:"prices_compiled"`
	Sources  []string `json:"prices_sources,omitempty"`
}

// CostResource is Count units of an instance at UnitMonthlyUSD each.
type CostResource struct {
	Instance       string  `json:"instance,omitempty"`
	Count          int     `json:"count"`
	ExtraHourly    float64 `json:"extra_hourly_usd,omitempty"`
	UnitMonthlyUSD float64 `json:"unit_monthly_usd"`
}

// DynamoDBPrices are the DynamoDB prices a bill used.
type DynamoDBPrices struct {
	Region                      string  `json:"region"`
	WriteRequestUnitsPerMillion float64 `json:"write_request_units_per_million"`
	ReadRequestUnitsPerMillion  float64 `json:"read_request_units_per_million"`
	WCUHour                     float64 `json:"wcu_hour"`
	RCUHour                     float64 `json:"rcu_hour"`
	StorageGBMonth              float64 `json:"storage_gb_month"`
}

// Param is one matrix coordinate of a trial.
type Param struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Latency summarizes a latency histogram, in microseconds.
type Latency struct {
	Mean, P50, P90, P95, P99, P999, Max float64
}

// Op is one operation type's figures within a trial.
type Op struct {
	Name       string
	Operations int64
	Errors     int64
	Latency    Latency
}

// Trial is one row of trials.csv: a load phase or one measured run.
type Trial struct {
	ID         string
	Index      int
	Kind       string
	Target     string
	Database   string
	Driver     string
	Workload   string
	Params     []Param
	Repetition int
	Threads    int
	// TargetRate is the throttle in ops/s (0: none).
	TargetRate float64
	Start, End time.Time
	// Duration is the measured phase's length (warm-up excluded).
	Duration time.Duration
	// Operations counts the completed operations, successful or failed;
	// Errors the failed ones; Aborted those the run's own stop cut
	// short, which are in neither.
	Operations int64
	Errors     int64
	Aborted    int64
	// Throughput is successful operations per second (format 2; format
	// 1 counted failed ones too) and ErrorRate failed ones per second.
	Throughput float64
	ErrorRate  float64
	// Pacing is the harness's own lateness in starting paced operations
	// (zero in a closed loop); Late counts the paced operations that
	// started more than late.threshold behind their intended time.
	Pacing PacingLateness
	Late   int64
	// Latency merges every operation type; Ops has each one.
	Latency Latency
	Ops     []Op
	// LoaderCPU is the load generator's mean and peak CPU (100 = one
	// core) over the measured phase, on LoaderCPUs available cores.
	LoaderCPU, LoaderCPUMax float64
	LoaderCPUs              int
	// Concurrency is Little's law: throughput x mean latency, the number
	// of operations in flight on average.
	Concurrency float64
	// Flags are validity warnings ("client-bound: ...").
	Flags  []Flag
	Status string
	// StatusReason says why a trial failed or stopped: the error policy
	// it broke, the error that ended it.
	StatusReason string
	// Counters are the driver's own counts over the whole trial, warm-up
	// included (client retries, DynamoDB's consumed capacity units).
	Counters map[string]float64
	// Bottleneck is what bound the trial (analysis/bottleneck: "client
	// CPU", "database CPU", "cache misses / disk", "rate-limited", "none
	// found", ...) and BottleneckWhy the figures that say so; "" for a
	// failed trial and in directories written before it existed.
	Bottleneck, BottleneckWhy string
	// DBFigures are the database's own ratios over the measured window,
	// from dbmetrics.csv's samples: cache hit ratios, the share of
	// active sessions waiting on locks ("pg_cache_hit_ratio": 0.97).
	DBFigures map[string]float64
	// Reference is the database's own load tool run on the same reads
	// right after the trial (run.reference); its Tool is "" when none
	// ran, and then Note may say why.
	Reference Reference
	// Reconstructed marks a row Read rebuilt from the trial's intervals
	// because the writer died before writing it (see Read). It is never
	// written to trials.csv.
	Reconstructed bool
}

// SetRates computes the trial's successful and failed operations per
// second from its counts and measured duration.
func (t *Trial) SetRates() {
	t.Throughput, t.ErrorRate = rates(t.Operations, t.Errors, t.Duration)
}

// SetRates computes the interval's successful and failed operations per
// second from its counts and its own length.
func (p *Point) SetRates() {
	p.Rate, p.ErrorRate = rates(p.Ops, p.Errors, p.Length)
}

// rates are ops completed operations, errs of them failed, per second of
// d: the successes' and the failures' (0 and 0 for no time).
func rates(ops, errs int64, d time.Duration) (ok, failed float64) {
	secs := d.Seconds()
	if secs <= 0 {
		return 0, 0
	}
	return float64(ops-errs) / secs, float64(errs) / secs
}

// PacingLateness summarizes how late the harness started paced
// operations, in microseconds.
type PacingLateness struct {
	P50, P99, Max float64
}

// Reference is one run of a native load tool beside a trial.
type Reference struct {
	// Tool is the program (pgbench, redis-benchmark), Command the command
	// line it ran, secrets masked.
	Tool, Command string
	// Throughput is in ops/s, MeanLatency in microseconds (0: not
	// reported).
	Throughput, MeanLatency float64
	// Note says what differed from the trial, or why no reference ran.
	Note string
}

// Ratio is the trial's throughput as a share of the reference's; 0 when
// no reference ran.
func (t *Trial) Ratio() float64 {
	if t.Reference.Throughput <= 0 {
		return 0
	}
	return t.Throughput / t.Reference.Throughput
}

// AllOps is the pseudo operation name of a merged row.
const AllOps = "ALL"

// OpNames returns the operation types trials.csv has columns for, in
// YCSB's order.
func OpNames() []string { return workload.KindNames() }

package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/analysis/cost"
	"github.com/dbarena/dbarena/internal/bounds"
	"github.com/dbarena/dbarena/properties"
)

// Options are what the caller knows about the tool: the valid names an
// experiment may use. A nil list accepts any name, which keeps this
// package free of the driver and provider tables it must not import.
type Options struct {
	// Databases are the valid database names, sorted.
	Databases []string
	// Providers are the valid deploy providers.
	Providers []string
	// Drivers are the valid driver names; nil accepts any.
	Drivers []string
	// DriverFor returns the default driver of a database; nil (or an empty
	// answer) makes the database's name its driver's name.
	DriverFor func(database string) string
	// DriverPrefixes are the property prefixes drivers read ("postgres"
	// for "postgres.url"): such properties are neither unknown nor
	// rejected as matrix axes.
	DriverPrefixes []string
}

// Spec is a parsed, validated experiment file. Its defaults are applied.
type Spec struct {
	Name        string
	Description string
	// Seed is the base seed; 0 leaves the choice to the run.
	Seed uint64
	// Results is the parent directory of results directories, relative
	// to the current directory.
	Results string
	// Properties apply to every target and workload, in file order.
	Properties []KV
	Targets    []Target
	Workloads  []Workload
	Load       LoadSettings
	Run        RunSettings
	// Matrix is expanded as a cartesian product, axes in file order, the
	// first outermost. An axis that changes the data (recordcount) loads
	// once per value when it comes first, once per point when it follows
	// another axis.
	Matrix []Axis
	// Sizes are the values of the matrix axis size, in file order: the
	// targets are expanded over them (Targets holds the sized ones).
	Sizes []Size
	// SLO is the latency objective sweeps are judged by; nil: none.
	SLO *SLO
	// Goal is the load the experiment sizes for: with rate searches
	// over sizes, the verdict and the report name the cheapest size
	// that serves it. nil: none.
	Goal *Goal
	// Catalogue is the price catalogue targets' costs come from: the
	// built-in one with the prices file (PricesFile, as written) laid
	// over it.
	Catalogue  *cost.Catalogue
	PricesFile string
	// File is the name given to Parse: errors and sources use it.
	File string
	// DriverPrefixes are Options.DriverPrefixes, kept for NewPlan.
	DriverPrefixes []string

	// lines are the lines of the load and run settings ("run.threads"),
	// so that the properties a step derives from them point at the file.
	lines map[string]int
}

// KV is one property with the line it was written on.
type KV struct {
	Key, Value string
	// Line is the line in the experiment file; 0 when the value was set
	// by code, and then Origin says by what (a flag such as "--records").
	Line   int
	Origin string
}

// SetProperty sets an experiment-wide property after parsing, replacing
// the file's value in place or adding it last; origin names what set it
// (a flag such as "--records") in the sources of the plan's properties.
// Call NewPlan afterwards: it validates every trial again.
func (s *Spec) SetProperty(key, value, origin string) {
	kv := KV{Key: key, Value: value, Origin: origin}
	for i := range s.Properties {
		if s.Properties[i].Key == key {
			s.Properties[i] = kv
			return
		}
	}
	s.Properties = append(s.Properties, kv)
}

// Target is one database deployment to measure.
type Target struct {
	// Name is unique in the experiment and safe in file names.
	Name     string
	Database string
	Driver   string
	// Properties are driver properties, for the deployer and the driver.
	Properties map[string]string
	// PropertyLines are the lines of Properties in the file.
	PropertyLines map[string]int
	Deploy        Deploy
	// Cost is what the target would cost to run; nil: not priced.
	Cost *Cost
	// Line is where the target's entry starts.
	Line int
	// Base is the target's name in the file and Size the label of its
	// size, when the matrix axis size made it one of several sizes of
	// that target (Name is then BASE-SIZE); both empty otherwise.
	Base, Size string
}

// Deploy says where and how a target runs.
type Deploy struct {
	Provider string
	Nodes    int
	// CPUs and MemoryBytes limit the deployment; 0 is no limit.
	CPUs        float64
	MemoryBytes int64
	// Pin gives a local deployment ceil(CPUs) whole cores of its own (a
	// cpuset), which the load generator then stays off: the database and
	// the client never compete for a core.
	Pin     bool
	Version string
	// Options are provider-specific settings.
	Options map[string]string
}

// Workload is one YCSB workload: a base (a built-in workload, a property
// file or YCSB's defaults) and properties laid over it.
type Workload struct {
	// Name is unique in the experiment and safe in file names.
	Name string
	// Builtin is the short name ("a") of a built-in base, or "".
	Builtin string
	// File is a property file base, resolved against the experiment
	// file's directory, or "".
	File       string
	Properties []KV
	// Line is where the workload's entry starts.
	Line int

	// base caches the parsed built-in or file; nil means read it again.
	base *properties.Set
}

// LoadSettings is the load phase. Its type is not called Load because
// Load names the step kind.
type LoadSettings struct {
	Enabled   bool
	Threads   int
	BatchSize int
	// Target is the rate limit in operations per second; 0 is none.
	Target float64
	Verify bool
	// Drop starts each load from an empty table.
	Drop bool
}

// ThreadsAuto is run.threads' value for a calibrated count.
const ThreadsAuto = "auto"

// RunSettings is the measured phase: exactly one of Duration and
// Operations is set.
type RunSettings struct {
	Duration   time.Duration
	Operations int64
	Warmup     time.Duration
	// WarmupSteady ends the warm-up once the throughput is steady, after
	// Warmup at the latest (run.warmup: {until: steady, max: D}).
	WarmupSteady bool
	// Prewarm (run.prewarm) warms each target once, before its first
	// run, on every operation its workloads run that leaves the data as
	// loaded, until six 5-second blocks in a row agree within 5%, at
	// most this long (0: no such warm-up). A JVM compiles its hot paths
	// for minutes on one core: a trial's own warm-up sees it steady for
	// five seconds while it still climbs across the trials.
	Prewarm time.Duration
	Threads int
	// ThreadsAuto (run.threads: auto) chooses each target's threads by
	// a short calibration before its first run: the fewest workers that
	// reach 95% of the most throughput a ramp of them found.
	ThreadsAuto bool
	// Target is the rate limit in operations per second; 0 is none.
	Target      float64
	Repetitions int
	// RepetitionsAuto (run.repetitions: auto) runs rounds until every
	// workload's comparison is decided (a lead, or equivalence within
	// Equivalence), at least MinRounds (Repetitions holds it) and while
	// Budget allows another round.
	RepetitionsAuto bool
	// Budget is how long an experiment with repetitions: auto may take,
	// from its start (run.budget; DefaultBudget).
	Budget time.Duration
	// Order is how the repetitions run: OrderRounds (each round visits
	// every target and workload once, in an order drawn from the seed)
	// or OrderSequential (each target's repetitions back to back).
	// Empty: rounds, but sequential for sweeps and searches (Until),
	// whose steps follow each other by design.
	Order string
	// Equivalence is the margin within which two targets count as
	// equivalent (run.equivalence; 0: analysis/decide's default, 5%).
	Equivalence float64
	// Until is "saturated" to end a client sweep early: once the matrix
	// axis threads has added under SaturationGain (a fraction) of
	// throughput for SaturationSteps steps in a row, the remaining thread
	// counts of that workload and matrix point are skipped. "slo"
	// searches each run's rate instead: the highest the target sustains
	// at the objective (slo), to within Resolution (a fraction), in at
	// most MaxProbes probes of Duration each. "" runs every point.
	Until           string
	SaturationGain  float64
	SaturationSteps int
	Resolution      float64
	MaxProbes       int
	// Stages, when set, make each run a schedule (run.stages or
	// run.ramp); Duration is then their sum and Threads the largest
	// stage's.
	Stages []Stage
	// MaxErrorRate and StopOnErrorRate are the error policy
	// (run.max_error_rate, run.stop_on_error_rate); nil leaves the
	// runner's defaults.
	MaxErrorRate, StopOnErrorRate *float64
	// Loaders is the number of load generator processes each run is
	// split over (0 or 1: the experiment's own process); each runs Threads
	// workers and its share of the operations and rate, and their
	// HdrHistogram logs are merged into the trial. LoaderCommands, when
	// set, prefix each loader's command ("ssh host1", "ip netns exec
	// ns1") to run it elsewhere; there is one per loader.
	Loaders        int
	LoaderCommands [][]string
	// Reference runs the database's own load tool after each read-only
	// trial, on the same reads, threads and duration (package
	// reference), so the report can tell a client ceiling from the
	// database's.
	Reference bool
}

// RunSettings.Order's values.
const (
	OrderRounds     = "rounds"
	OrderSequential = "sequential"
)

// Repetitions: auto's bounds: at least MinRounds, within DefaultBudget
// unless run.budget says otherwise, and never more than MaxRounds.
const (
	MinRounds     = 3
	MaxRounds     = 30
	DefaultBudget = 30 * time.Minute
	// RepetitionsAutoValue is the word run.repetitions takes for it.
	RepetitionsAutoValue = "auto"
)

// Rounds reports whether the repetitions run in interleaved rounds.
func (r RunSettings) Rounds() bool {
	switch r.Order {
	case OrderRounds:
		return true
	case OrderSequential:
		return false
	}
	return r.Until == ""
}

// RunSettings.Until's values.
const (
	// UntilSaturated ends a client sweep once throughput stops growing.
	UntilSaturated = "saturated"
	// UntilSLO searches the highest rate that meets the objective.
	UntilSLO = "slo"
)

// Axis is one dimension of the matrix.
type Axis struct {
	// Property is "threads", "target" or a workload or driver property.
	Property string
	Values   []string
	// Line is the axis key's line; ValueLines hold each value's.
	Line       int
	ValueLines []int
}

// Error is a problem at a place in the experiment file.
type Error struct {
	File   string
	Line   int
	Column int // 0 when the line is enough
	// Path is where in the document ("targets[1].deploy"); may be empty.
	Path string
	Msg  string
}

// Error renders "file:line[:col]: path: msg".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// maxTrials bounds a matrix: beyond it a typo (an axis of 1000 values)
// would plan weeks of runs and validate for minutes before saying so.
const maxTrials = 10_000

// validName reports whether s matches [a-z0-9][a-z0-9_-]*, which keeps
// names usable in step IDs and file names.
func validName(s string) bool {
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '-' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return s != ""
}

// ParseFile reads and parses an experiment file of at most
// bounds.MaxFileBytes.
func ParseFile(path string, opts Options) (*Spec, error) {
	data, err := bounds.ReadFile(path, bounds.MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("experiment file: %w", err)
	}
	return Parse(path, data, opts)
}

// Parse decodes and validates an experiment. name is the file's path:
// errors name it, and workload files are resolved against its directory.
// Every error found is reported, each as "file:line: path: problem",
// joined with errors.Join; the decoding errors are *Error values.
// Beyond the file's structure, every trial's merged properties must pass
// workload.ParseConfig.
func Parse(name string, data []byte, opts Options) (*Spec, error) {
	doc, err := parseYAML(name, data)
	if err != nil {
		return nil, err
	}
	d := newDecoder(name, opts, doc)
	s := d.spec(doc)
	if len(d.errs) > 0 {
		sort.SliceStable(d.errs, func(i, j int) bool { return d.errs[i].Line < d.errs[j].Line })
		errs := make([]error, len(d.errs))
		for i, e := range d.errs {
			errs[i] = e
		}
		return nil, errors.Join(errs...)
	}
	if _, err := NewPlan(s); err != nil {
		return nil, err
	}
	return s, nil
}

// parseYAML returns the document node of the file's only document.
func parseYAML(name string, data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: name, Msg: "empty file: want a mapping with name, targets and workloads"}
		}
		return nil, syntaxError(name, err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		line := next.Line
		if err != nil {
			line = 0
		}
		return nil, &Error{File: name, Line: line, Msg: "more than one YAML document: want one experiment per file"}
	}
	return &doc, nil
}

// syntaxError rewords yaml.v3's "yaml: line 3: msg" as "name:3: msg",
// the form of every other error.
func syntaxError(name string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, text, ok := strings.Cut(rest, ": "); ok {
			if _, convErr := strconv.Atoi(num); convErr == nil {
				return fmt.Errorf("%s:%s: %s", name, num, text)
			}
		}
	}
	return fmt.Errorf("%s: %s", name, msg)
}

// Goal is a throughput to serve at the objective, with headroom: the
// need is Throughput x (1 + Headroom).
type Goal struct {
	Throughput, Headroom float64
}

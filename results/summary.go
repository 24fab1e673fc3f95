package results

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/internal/bounds"
	"github.com/dbarena/dbarena/measure"
)

// Summary is the JSON summary of one `dbarena ycsb` phase (--json). It is
// a stable interface for scripts and the exchange between an experiment
// and the loader processes it starts: the loader writes it, the
// experiment reads it with ReadSummary, and both sides compile against
// this one type.
type Summary struct {
	Tool        string            `json:"tool"`
	Build       BuildInfo         `json:"build"`
	Phase       string            `json:"phase"`
	Driver      string            `json:"driver"`
	Threads     int               `json:"threads"`
	Target      float64           `json:"target_ops_sec,omitempty"`
	Seed        uint64            `json:"seed"`
	Start       time.Time         `json:"start"`
	End         time.Time         `json:"end"`
	Interrupted bool              `json:"interrupted"`
	StopReason  string            `json:"stop_reason"`
	LateUs      float64           `json:"late_threshold_us,omitempty"`
	Properties  map[string]string `json:"properties"`
	Warmup      *measure.Phase    `json:"warmup,omitempty"`
	Measured    measure.Phase     `json:"measured"`
	Loader      *LoaderUsage      `json:"loader,omitempty"`
	// Verify is the read-back check of a load (load --verify, ycsb verify).
	Verify *VerifyReport `json:"verify,omitempty"`
	// Ledger is the audit of a ledger's accounts after its load or run.
	Ledger *LedgerReport `json:"ledger,omitempty"`
	// TPCC is the check of TPC-C's consistency conditions after its run.
	TPCC *ConsistencyReport `json:"tpcc,omitempty"`
	// TPCCFigures are a TPC-C run's rates named by its mode.
	TPCCFigures *TPCCFigures `json:"tpcc_figures,omitempty"`
	// DriverCounters are events the driver counted itself: client library
	// retries, consumed capacity units.
	DriverCounters []Counter `json:"driver_counters,omitempty"`
	// RunID, LoaderIndex ("I/N", see LoaderIndex) and Host identify one
	// of several loaders sharing a run.
	RunID       string `json:"run_id,omitempty"`
	LoaderIndex string `json:"loader_index,omitempty"`
	Host        string `json:"host,omitempty"`
}

// BuildInfo describes the binary that wrote a file.
type BuildInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go"`
}

// LoaderUsage is what the benchmark process itself consumed: a run whose
// loader used most of a CPU core per worker thread measured the client,
// not the database.
type LoaderUsage struct {
	MaxRSSBytes int64   `json:"max_rss_bytes"`
	UserCPU     float64 `json:"user_cpu_s"`
	SystemCPU   float64 `json:"system_cpu_s"`
	// RunCPU and RunWall are the CPU seconds (user and system) the
	// process spent while the phase ran and the phase's wall-clock
	// seconds; Cores is how many cores it could use (GOMAXPROCS, which
	// follows a container's CPU limit). An experiment running this
	// process as a loader elsewhere judges from them whether the loader
	// machine, not the database, was the bottleneck.
	RunCPU  float64 `json:"run_cpu_s"`
	RunWall float64 `json:"run_wall_s"`
	Cores   int     `json:"cores"`
}

// VerifyReport is the outcome of reading back every loaded record.
type VerifyReport struct {
	Records    int64   `json:"records"`
	OK         int64   `json:"ok"`
	Missing    int64   `json:"missing"`
	Mismatched int64   `json:"mismatched"`
	Errors     int64   `json:"errors"`
	Seconds    float64 `json:"seconds"`
	// Exact is true when values were compared byte for byte
	// (dataintegrity=true); otherwise only presence and field lengths.
	Exact bool `json:"exact"`
}

// Failed reports whether any record was missing, wrong or unreadable.
func (r *VerifyReport) Failed() bool { return r.Missing+r.Mismatched+r.Errors > 0 }

// String is the one-line summary of a verify pass.
func (r *VerifyReport) String() string {
	how := "values compared byte for byte"
	if !r.Exact {
		how = "presence and lengths only: set dataintegrity=true to compare values"
	}
	return fmt.Sprintf("verify: %d records read back in %.2fs: %d ok, %d missing, %d mismatched, %d errors (%s)",
		r.Records, r.Seconds, r.OK, r.Missing, r.Mismatched, r.Errors, how)
}

// LedgerReport is the audit of a ledger's accounts: every account read
// back, its balance parsed, the balances summed. Transfers move money
// and never make or destroy it, and decline what would take a payer
// below the floor, so the total must be what was loaded and no balance
// below the floor.
type LedgerReport struct {
	// Accounts is how many accounts were asked for, Read how many were
	// read and held a balance.
	Accounts int64 `json:"accounts"`
	Read     int64 `json:"read"`
	// Total is the sum of the balances read, Expected what the load put
	// in (accounts x ledger.balance).
	Total    int64 `json:"total"`
	Expected int64 `json:"expected_total"`
	// Floor is ledger.floor and BelowFloor how many balances were under
	// it.
	Floor      int64 `json:"floor"`
	BelowFloor int64 `json:"below_floor"`
	// Missing accounts were not found, Unreadable ones held no integer,
	// Errors could not be read.
	Missing    int64 `json:"missing"`
	Unreadable int64 `json:"unreadable"`
	Errors     int64 `json:"errors"`
	// Evidence names up to MaxEvidence accounts that break the
	// invariants, with what they hold.
	Evidence []string `json:"evidence,omitempty"`
	Seconds  float64  `json:"seconds"`
	// During is the sums of every balance taken in one snapshot while
	// the transfers ran (nil when the driver takes none, or none was
	// due).
	During *LedgerSnapshots `json:"during,omitempty"`
}

// LedgerSnapshots are a ledger's sums taken during its run: how many,
// and the first that broke an invariant, when one did.
type LedgerSnapshots struct {
	Taken int64 `json:"taken"`
	// Failed counts snapshots the database could not take (an error);
	// they break nothing.
	Failed int64 `json:"failed,omitempty"`
	// Broken counts snapshots whose sum was not what was loaded or that
	// found a balance below the floor; First says the first of them.
	Broken int64  `json:"broken"`
	First  string `json:"first,omitempty"`
	// NotJudged says why sampling stopped unjudged: the table holds
	// rows besides the ledger's accounts.
	NotJudged string `json:"not_judged,omitempty"`
}

// Audit is a check of a workload's invariants after its run phase, which
// fails the trial when they are broken: a ledger's balances
// (LedgerReport), TPC-C's consistency conditions (ConsistencyReport).
type Audit interface {
	// Failed says the invariants are broken, or could not all be
	// checked.
	Failed() bool
	// String is the one-line verdict, with the evidence when it failed.
	String() string
	// Counters are the audit's figures for the trial's row.
	Counters() map[string]float64
}

// The counters an audit puts on its trial's row (Audit.Counters), which
// AuditNote reads back.
const (
	CounterLedgerAccountsRead    = "ledger.accounts_read"
	CounterLedgerTotal           = "ledger.total"
	CounterLedgerExpectedTotal   = "ledger.expected_total"
	CounterLedgerBelowFloor      = "ledger.below_floor"
	CounterLedgerUnchecked       = "ledger.unchecked"
	CounterLedgerSnapshots       = "ledger.snapshots"
	CounterLedgerSnapshotsBroken = "ledger.snapshots_broken"
	CounterTPCCConditions        = "tpcc.conditions_checked"
	CounterTPCCConditionsBroken  = "tpcc.conditions_broken"
)

// Counters implements Audit.
func (r *LedgerReport) Counters() map[string]float64 {
	c := map[string]float64{
		CounterLedgerAccountsRead:  float64(r.Read),
		CounterLedgerTotal:         float64(r.Total),
		CounterLedgerExpectedTotal: float64(r.Expected),
		CounterLedgerBelowFloor:    float64(r.BelowFloor),
		CounterLedgerUnchecked:     float64(r.Missing + r.Unreadable + r.Errors),
	}
	if d := r.During; d != nil {
		c[CounterLedgerSnapshots], c[CounterLedgerSnapshotsBroken] = float64(d.Taken), float64(d.Broken)
	}
	return c
}

// ConsistencyReport is the check of TPC-C's consistency conditions
// (clause 3.3.2) after a run: each condition with the rows that break it.
type ConsistencyReport struct {
	Conditions []ConditionVerdict `json:"conditions"`
	Seconds    float64            `json:"seconds"`
}

// ConditionVerdict is one consistency condition checked: Broken rows
// break it, Evidence names the first of them.
type ConditionVerdict struct {
	Number   int      `json:"number"`
	Rule     string   `json:"rule"`
	Broken   int      `json:"broken"`
	Evidence []string `json:"evidence,omitempty"`
}

// Failed implements Audit.
func (r *ConsistencyReport) Failed() bool {
	for _, c := range r.Conditions {
		if c.Broken > 0 {
			return true
		}
	}
	return false
}

// String implements Audit.
func (r *ConsistencyReport) String() string {
	var broken []string
	for _, c := range r.Conditions {
		if c.Broken > 0 {
			broken = append(broken, fmt.Sprintf("condition %d, %s: %d rows break it (%s)", c.Number, c.Rule, c.Broken, strings.Join(c.Evidence, "; ")))
		}
	}
	s := fmt.Sprintf("TPC-C consistency: %d of %d conditions checked in %.2fs", len(r.Conditions)-len(broken), len(r.Conditions), r.Seconds)
	if len(broken) == 0 {
		return s + " hold"
	}
	return s + " hold; BROKEN: " + strings.Join(broken, "; ")
}

// Counters implements Audit.
func (r *ConsistencyReport) Counters() map[string]float64 {
	failed := 0
	for _, c := range r.Conditions {
		if c.Broken > 0 {
			failed++
		}
	}
	return map[string]float64{CounterTPCCConditions: float64(len(r.Conditions)), CounterTPCCConditionsBroken: float64(failed)}
}

// MaxEvidence is how many broken accounts a LedgerReport names.
const MaxEvidence = 10

// Failed reports whether the audit found the invariants broken, or could
// not check them all.
func (r *LedgerReport) Failed() bool {
	return r.Total != r.Expected || r.BelowFloor+r.Missing+r.Unreadable+r.Errors > 0 ||
		(r.During != nil && r.During.Broken > 0)
}

// String is the one-line summary of an audit, with its evidence when it
// failed.
func (r *LedgerReport) String() string {
	s := fmt.Sprintf("ledger audit: %d of %d accounts read in %.2fs, total %d (loaded %d, difference %+d), %d below the floor %d, %d missing, %d unreadable, %d errors",
		r.Read, r.Accounts, r.Seconds, r.Total, r.Expected, r.Total-r.Expected, r.BelowFloor, r.Floor, r.Missing, r.Unreadable, r.Errors)
	switch d := r.During; {
	case d == nil:
	case d.Taken == 0 && d.Failed == 0:
		// A run shorter than the interval took none: nothing to say,
		// unless the deployment could not take one.
		if d.NotJudged != "" {
			s += "; no snapshot sums during the run: " + d.NotJudged
		}
	default:
		s += fmt.Sprintf("; during the run %d snapshot sums", d.Taken)
		if d.Failed > 0 {
			s += fmt.Sprintf(" (%d more could not be taken)", d.Failed)
		}
		if d.Broken > 0 {
			s += fmt.Sprintf(", %d BROKEN, the first %s", d.Broken, d.First)
		}
		if d.NotJudged != "" {
			s += " (then stopped: " + d.NotJudged + ")"
		}
	}
	if !r.Failed() {
		return s + ": invariants hold"
	}
	s += ": INVARIANTS BROKEN"
	var why []string
	if d := r.Total - r.Expected; d != 0 && r.Missing+r.Unreadable+r.Errors == 0 {
		// Every account read, and the sum moved: money was made or
		// lost, which a sum cannot pin on an account.
		why = append(why, fmt.Sprintf("the total moved by %+d from what was loaded, which no single account shows", d))
	}
	if len(r.Evidence) > 0 {
		n := r.BelowFloor + r.Missing + r.Unreadable + r.Errors
		why = append(why, fmt.Sprintf("the accounts (%d of %d named): %s", len(r.Evidence), n, strings.Join(r.Evidence, "; ")))
	}
	if len(why) > 0 {
		s += " (" + strings.Join(why, "; ") + ")"
	}
	return s
}

// Counter is one figure a driver counted itself.
type Counter struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	// Help says what the counter measures, in a few words.
	Help string `json:"help,omitempty"`
}

// ReadSummary reads a JSON summary a loader wrote.
func ReadSummary(path string) (Summary, error) {
	var s Summary
	b, err := bounds.ReadFile(path, bounds.MaxFileBytes)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// WriteSummary writes s as indented JSON to path.
func WriteSummary(path string, s Summary) error {
	b, err := marshalSummary(s)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write JSON summary: %w", err)
	}
	return nil
}

// EncodeSummary writes s to w as WriteSummary writes it to a file.
func EncodeSummary(w io.Writer, s Summary) error {
	b, err := marshalSummary(s)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write JSON summary: %w", err)
	}
	return nil
}

// marshalSummary is s as indented JSON, ending in a newline.
func marshalSummary(s Summary) ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode JSON summary: %w", err)
	}
	return append(b, '\n'), nil
}

// StdoutPath names standard output wherever a flag or property names a
// file to write: a loader streams its interval log back through it.
const StdoutPath = "-"

// The `dbarena ycsb` flags a loader's command line uses. The CLI
// declares its flags with these names, and loader.Run.Args and the
// Kubernetes loader Job write them, so a renamed flag changes every
// side at once.
const (
	FlagWorkloadFile     = "workload-file"
	FlagQuiet            = "quiet"
	FlagLoader           = "loader"
	FlagRunID            = "run-id"
	FlagStartAt          = "start-at"
	FlagHdrLog           = "hdr-log"
	FlagJSON             = "json"
	FlagExport           = "export"
	FlagStopOnStdinClose = "stop-on-stdin-close"
)

// LoaderIndex writes loader i of n as "I/N".
func LoaderIndex(i, n int) string { return fmt.Sprintf("%d/%d", i, n) }

// ParseLoaderIndex reads "I/N" as LoaderIndex writes it.
func ParseLoaderIndex(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	var err1, err2 error
	i, err1 = strconv.Atoi(a)
	n, err2 = strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("%q: want I/N with 0 <= I < N, such as 0/3", s)
	}
	return i, n, nil
}

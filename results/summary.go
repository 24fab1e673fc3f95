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

package trial

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// Settings are the client-side settings of one trial, parsed once from
// its properties. An experiment parses a step's properties like `ycsb
// run` does, and lays its own typed settings over the result before
// they are validated (Parse).
type Settings struct {
	// Run is what the runner runs.
	Run runner.Config
	// StatusInterval is how often a status line is printed (YCSB's
	// status.interval).
	StatusInterval time.Duration
	// JSONOut, HdrLog and ExportFile are where the summary, the
	// HdrHistogram log and the YCSB text go ("" = not written, or stdout
	// for the text).
	JSONOut, HdrLog, ExportFile string
	// SeedGiven says the seed came from the properties; otherwise one
	// was drawn at random.
	SeedGiven bool
	// CreateSchema and Drop shape a load: create the table when missing
	// (default), after dropping it first when asked.
	CreateSchema, Drop bool
	// Verify reads every loaded record back after a load.
	Verify bool
	// AuditTimeout bounds what checks a workload's invariants after its
	// phase (a ledger's audit, TPC-C's consistency conditions and the
	// statistics of its load), the wait for workers still in a
	// transaction included: a database that stopped answering gets a
	// verdict, not a wait without end (audit.timeout).
	AuditTimeout time.Duration
	// Shared says the trial is one of several processes' shares of a
	// run (a loader): a ledger's audit is then its parent's, once
	// every share has stopped, since another's transfers may still be
	// moving money while this one's end.
	Shared bool
	// Notes say how YCSB's output properties were mapped onto dbarena's
	// outputs (exporter, hdrhistogram.fileoutput), for the caller to
	// print: the files are not where YCSB would have put them.
	Notes []string
}

// DefaultStatusInterval is YCSB's status.interval default.
const DefaultStatusInterval = 10 * time.Second

// DefaultAuditTimeout is audit.timeout's default: TPC-C's consistency
// check over one warehouse takes well under a second here, and ten
// minutes leave room for some thousand; a larger database sets its own.
const DefaultAuditTimeout = 10 * time.Minute

// ParseSettings reads the settings of a phase from p: the runner's
// (runner.ParseConfig) and the trial's own. They are not validated:
// a caller may lay its own over them first (see Parse).
func ParseSettings(p *properties.Set, phase runner.Phase, wcfg workload.Config) (Settings, error) {
	s := Settings{CreateSchema: true}
	var err error
	if s.Run, err = runner.ParseConfig(p, phase, wcfg); err != nil {
		return s, err
	}
	if s.StatusInterval, err = p.Duration(core.StatusInterval, DefaultStatusInterval); err != nil {
		return s, err
	}
	if s.Run.Seed, s.SeedGiven, err = parseSeed(p); err != nil {
		return s, err
	}
	if s.AuditTimeout, err = p.Duration(core.AuditTimeout, DefaultAuditTimeout); err != nil {
		return s, err
	}
	bools := []struct {
		key string
		dst *bool
	}{{core.SchemaCreate, &s.CreateSchema}, {core.Drop, &s.Drop}, {core.Verify, &s.Verify}}
	for _, b := range bools {
		if *b.dst, err = p.Bool(b.key, *b.dst); err != nil {
			return s, err
		}
	}
	s.JSONOut = p.String(core.JSONOutput, "")
	s.HdrLog = p.String(core.HdrLog, "")
	s.ExportFile = p.String(core.ExportFile, "")
	if err := ycsbOutputs(p, phase, &s); err != nil {
		return s, err
	}
	return s, nil
}

// Validate checks settings as a whole, once the caller laid its own
// over the properties' (Parse does it after its lay function).
func (s Settings) Validate() error {
	if s.StatusInterval <= 0 {
		return fmt.Errorf("status.interval: want a positive duration")
	}
	if s.AuditTimeout <= 0 {
		return fmt.Errorf("%s %s: want a positive duration", core.AuditTimeout, s.AuditTimeout)
	}
	return s.Run.Validate()
}

// Write sets in p the properties ParseSettings reads for the trial's
// run, its seed and its load (schema.create, drop, verify): a process
// handed p (a loader) parses back the settings s holds. The outputs are
// left out; a loader is given its own.
func (s Settings) Write(p *properties.Set, src properties.Source) {
	s.Run.Write(p, src)
	p.Set(core.Seed, strconv.FormatUint(s.Run.Seed, 10), src)
	p.Set(core.StatusInterval, s.StatusInterval.String(), src)
	p.Set(core.SchemaCreate, strconv.FormatBool(s.CreateSchema), src)
	p.Set(core.Drop, strconv.FormatBool(s.Drop), src)
	p.Set(core.Verify, strconv.FormatBool(s.Verify), src)
	p.Set(core.AuditTimeout, s.AuditTimeout.String(), src)
}

// parseSeed reads the seed, or draws one from the operating system so
// that every run has a seed to report and reproduce.
func parseSeed(p *properties.Set) (seed uint64, given bool, err error) {
	if v, src, ok := p.Lookup(core.Seed); ok {
		s, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return 0, false, fmt.Errorf("%s: property \"seed\"=%q: want an unsigned integer", src, v)
		}
		return s, true, nil
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, false, fmt.Errorf("draw a random seed: %w", err)
	}
	// Keep seeds short enough to retype.
	return binary.LittleEndian.Uint64(b[:]) % 1_000_000_000, false, nil
}

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
// its properties. An experiment parses a step's properties with
// ParseSettings like `ycsb run` does, then lays its own sections over
// the result.
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
	// Notes say how YCSB's output properties were mapped onto dbarena's
	// outputs (exporter, hdrhistogram.fileoutput), for the caller to
	// print: the files are not where YCSB would have put them.
	Notes []string
}

// DefaultStatusInterval is YCSB's status.interval default.
const DefaultStatusInterval = 10 * time.Second

// ParseSettings reads the settings of a phase from p: the runner's
// (runner.ParseConfig) and the trial's own.
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
	if s.StatusInterval <= 0 {
		return s, fmt.Errorf("status.interval: want a positive duration")
	}
	if err := s.Run.Validate(); err != nil {
		return s, err
	}
	return s, nil
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

package cli

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload"
)

// runSettings are the client-side settings of one ycsb command, parsed once
// from the properties.
type runSettings struct {
	run            runner.Config
	statusInterval time.Duration
	jsonOut        string
	hdrLog         string
	exportFile     string
	seedGiven      bool
	// createSchema and drop shape the load: create the table when missing
	// (default), after dropping it first when asked.
	createSchema bool
	drop         bool
	// verify reads every loaded record back after a load.
	verify bool
}

// defaultStatusInterval is YCSB's status.interval default.
const defaultStatusInterval = 10 * time.Second

func parseRunSettings(p *properties.Set, phase runner.Phase, wcfg workload.Config) (runSettings, error) {
	rs := runSettings{createSchema: true}
	var err error
	if rs.run, err = runner.ParseConfig(p, phase, wcfg); err != nil {
		return rs, err
	}
	if rs.statusInterval, err = p.Duration("status.interval", defaultStatusInterval); err != nil {
		return rs, err
	}
	if err := seedProp(p, &rs); err != nil {
		return rs, err
	}
	bools := []struct {
		key string
		dst *bool
	}{{"schema.create", &rs.createSchema}, {"drop", &rs.drop}, {"verify", &rs.verify}}
	for _, b := range bools {
		if *b.dst, err = p.Bool(b.key, *b.dst); err != nil {
			return rs, err
		}
	}
	rs.jsonOut = p.String("json.output", "")
	rs.hdrLog = p.String("hdr.log", "")
	rs.exportFile = p.String("exportfile", "")
	if rs.statusInterval <= 0 {
		return rs, fmt.Errorf("status.interval: want a positive duration")
	}
	if err := rs.run.Validate(); err != nil {
		return rs, err
	}
	return rs, nil
}

// seedProp reads the seed, or draws one from the operating system so that
// every run has a seed to report and reproduce.
func seedProp(p *properties.Set, rs *runSettings) error {
	v, src, ok := p.Lookup("seed")
	if ok {
		s, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return fmt.Errorf("%s: property \"seed\"=%q: want an unsigned integer", src, v)
		}
		rs.run.Seed, rs.seedGiven = s, true
		return nil
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Errorf("draw a random seed: %w", err)
	}
	// Keep seeds short enough to retype.
	rs.run.Seed = binary.LittleEndian.Uint64(b[:]) % 1_000_000_000
	return nil
}

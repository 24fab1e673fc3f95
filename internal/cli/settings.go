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
	rs := runSettings{statusInterval: defaultStatusInterval, createSchema: true}
	c := &rs.run
	c.Phase = phase
	c.Interval = time.Second
	var err error
	if c.Threads, err = p.Int("threadcount", 1); err != nil {
		return rs, err
	}
	if c.Target, err = p.Float("target", 0); err != nil {
		return rs, err
	}
	if phase == runner.Transactions {
		c.OperationCount = wcfg.OperationCount
		if v, src, ok := p.Lookup("stages"); ok && strings.TrimSpace(v) != "" {
			if c.Stages, err = runner.ParseStages(v); err != nil {
				return rs, fmt.Errorf("%s: property stages: %w", src, err)
			}
			// The workers are made for the largest stage.
			c.Threads = 0
			for _, st := range c.Stages {
				c.Threads = max(c.Threads, st.Threads)
			}
		}
	}
	durations := []struct {
		key string
		dst *time.Duration
	}{
		{"maxexecutiontime", &c.MaxExecutionTime},
		{"warmup.time", &c.WarmupTime},
		{"status.interval", &rs.statusInterval},
		{"late.threshold", &c.LateThreshold},
	}
	for _, d := range durations {
		if *d.dst, err = p.Duration(d.key, *d.dst); err != nil {
			return rs, err
		}
	}
	if c.WarmupOperations, err = p.Int64("warmup.operations", 0); err != nil {
		return rs, err
	}
	if err := seedProp(p, &rs); err != nil {
		return rs, err
	}
	if c.StopOnErrorRate, err = p.Float("stop-on-error-rate", 0); err != nil {
		return rs, err
	}
	if c.BatchSize, err = p.Int("batchsize", 1); err != nil {
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
	c.InsertRetryLimit = wcfg.InsertionRetryLimit
	c.InsertRetryInterval = wcfg.InsertionRetryInterval
	rs.jsonOut = p.String("json.output", "")
	rs.hdrLog = p.String("hdr.log", "")
	rs.exportFile = p.String("exportfile", "")
	if rs.statusInterval <= 0 {
		return rs, fmt.Errorf("status.interval: want a positive duration")
	}
	if err := c.Validate(); err != nil {
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

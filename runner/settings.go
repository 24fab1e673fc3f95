package runner

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/workload"
)

// Error policy defaults: a run is judged failed when more than 1% of its
// operations failed, and stops as soon as one second is mostly failures,
// keeping what it measured: a database that died is not benchmarked for
// the rest of the run, and its failures are not reported as throughput.
const (
	DefaultMaxErrorRate    = 0.01
	DefaultStopOnErrorRate = 0.5
)

// ParseConfig reads a run's settings from YCSB-style properties: the
// one place that turns properties into a Config, for `ycsb` commands,
// experiments and loaders alike. Settings an experiment owns
// (threadcount, target, operationcount, maxexecutiontime, warmup.time,
// stages, batchsize) take their properties' values here and are then
// set from the experiment file by the caller. Errors name the property
// and where it was set.
func ParseConfig(p *properties.Set, phase Phase, wcfg workload.Config) (Config, error) {
	c := Config{Phase: phase, Interval: time.Second, InsertRetryLimit: wcfg.InsertionRetryLimit,
		InsertRetryInterval: wcfg.InsertionRetryInterval, JudgeErrors: true}
	var err error
	if c.Threads, err = p.Int(core.ThreadCount, core.DefaultThreadCount); err != nil {
		return c, err
	}
	if c.Target, err = p.Float(core.Target, 0); err != nil {
		return c, err
	}
	if phase == Transactions {
		c.OperationCount = wcfg.OperationCount
		if v, src, ok := p.Lookup(core.Stages); ok && strings.TrimSpace(v) != "" {
			if c.Stages, err = ParseStages(v); err != nil {
				return c, fmt.Errorf("%s: property stages: %w", src, err)
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
		{core.MaxExecutionTime, &c.MaxExecutionTime},
		{core.WarmupTime, &c.WarmupTime},
		{core.LateThreshold, &c.LateThreshold},
		{core.StopGrace, &c.StopGrace},
	}
	for _, d := range durations {
		if *d.dst, err = p.Duration(d.key, *d.dst); err != nil {
			return c, err
		}
	}
	if c.WarmupOperations, err = p.Int64(core.WarmupOperations, 0); err != nil {
		return c, err
	}
	if c.WarmupSteady, err = p.Bool(core.WarmupSteady, false); err != nil {
		return c, err
	}
	if c.StopOnErrorRate, err = p.Float(core.StopOnErrorRate, DefaultStopOnErrorRate); err != nil {
		return c, err
	}
	if c.MaxErrorRate, err = p.Float(core.MaxErrorRate, DefaultMaxErrorRate); err != nil {
		return c, err
	}
	if c.BatchSize, err = p.Int(core.BatchSize, 1); err != nil {
		return c, err
	}
	c.NotFoundIsNoError = phase == Transactions && wcfg.DeleteProportion > 0
	if phase == Verify {
		// A verify pass counts what is missing or wrong and says so
		// itself: stopping at the first second of missing records would
		// leave the rest unread.
		c.JudgeErrors, c.StopOnErrorRate = false, 0
	}
	return c, nil
}

// Write sets in p every property ParseConfig reads, from c: ParseConfig
// of p then gives c back (save what the phase and the workload decide:
// the collection interval, the insert retries, the error policy's
// switches). It is how a typed Config crosses to a process that reads
// properties, a loader, with no second spelling of the keys: the
// property file a loader runs is written by the code that reads it.
func (c Config) Write(p *properties.Set, src properties.Source) {
	set := func(key, v string) { p.Set(key, v, src) }
	set(core.ThreadCount, strconv.Itoa(c.Threads))
	set(core.Target, strconv.FormatFloat(c.Target, 'f', -1, 64))
	if c.Phase == Transactions {
		set(core.OperationCount, strconv.FormatInt(c.OperationCount, 10))
	}
	// An empty schedule is no schedule: it hides one a property file set.
	set(core.Stages, FormatStages(c.Stages))
	for _, d := range []struct {
		key string
		v   time.Duration
	}{
		{core.MaxExecutionTime, c.MaxExecutionTime},
		{core.WarmupTime, c.WarmupTime},
		{core.LateThreshold, c.LateThreshold},
		{core.StopGrace, c.StopGrace},
	} {
		// A Go duration reads back to the nanosecond.
		set(d.key, d.v.String())
	}
	set(core.WarmupOperations, strconv.FormatInt(c.WarmupOperations, 10))
	set(core.WarmupSteady, strconv.FormatBool(c.WarmupSteady))
	set(core.StopOnErrorRate, strconv.FormatFloat(c.StopOnErrorRate, 'f', -1, 64))
	set(core.MaxErrorRate, strconv.FormatFloat(c.MaxErrorRate, 'f', -1, 64))
	set(core.BatchSize, strconv.Itoa(c.BatchSize))
}

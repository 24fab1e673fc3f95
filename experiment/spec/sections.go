package spec

import (
	"strings"

	"github.com/dbarena/dbarena/properties/core"
)

// sections lists the keys the decoder accepts in each fixed-key mapping,
// by document path ("" is the top level; "[]" is any item of a list).
// The decoder checks keys against it and the schema test compares it
// with schema.json, so the two cannot drift.
func sections() map[string][]string {
	return map[string][]string{
		"":                 {"name", "description", "seed", "results", "properties", "targets", "workloads", "load", "run", "matrix", "slo", "goal", "prices"},
		"targets[]":        {"name", "database", "driver", "properties", "deploy", "cost"},
		"targets[].cost":   {"instance", "count", "extra_hourly"},
		"targets[].cost[]": {"instance", "count", "extra_hourly"},
		"targets[].deploy": {"provider", "nodes", "cpus", "memory", "pin", "version", "options"},
		"workloads[]":      {"name", "builtin", "file", "properties"},
		"load":             {"enabled", "threads", "batch_size", "target", "verify", "drop"},
		"slo":              {"p50", "p90", "p95", "p99", "p999", "achieved"},
		"goal":             {"throughput", "headroom"},
		"run.warmup":       {"until", "max"},
		"run":              {"duration", "operations", "warmup", "prewarm", "threads", "target", "repetitions", "budget", "order", "equivalence", "until", "saturation_gain", "saturation_steps", "resolution", "max_probes", "reference", "stages", "ramp", "loaders", "loader_commands", "max_error_rate", "stop_on_error_rate"},
		"run.stages[]":     {"duration", "threads", "target"},
		"run.ramp":         {"from", "to", "step", "every"},
	}
}

// freeMaps lists the mappings whose keys are the user's (property names,
// provider options, matrix axes), by document path.
func freeMaps() []string {
	return []string{"properties", "targets[].properties", "targets[].deploy.options", "workloads[].properties", "matrix"}
}

// sectionKeys returns the accepted keys at a path such as
// "targets[1].deploy".
func sectionKeys(path string) []string {
	return sections()[genericPath(path)]
}

// genericPath replaces list indices with "[]": "targets[1].deploy" is
// "targets[].deploy".
func genericPath(path string) string {
	var b strings.Builder
	skip := false
	for _, c := range path {
		switch {
		case c == '[':
			skip = true
			b.WriteString("[]")
		case c == ']':
			skip = false
		case !skip:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// ownedProperties are YCSB properties that the experiment's own settings
// decide, with the setting to use instead. Writing them as properties
// would make two places disagree about, say, the thread count; a YCSB
// property file may still contain them (the built-ins set operationcount)
// and the settings win.
func ownedProperties() map[string]string {
	return map[string]string{
		core.ThreadCount:      `run.threads, load.threads or a matrix axis "threads"`,
		core.Target:           `run.target, load.target or a matrix axis "target"`,
		core.OperationCount:   "run.operations",
		core.MaxExecutionTime: "run.duration",
		core.WarmupTime:       "run.warmup",
		core.Stages:           "run.stages or run.ramp",
		core.BatchSize:        "load.batch_size",
		core.DoTransactions:   "the load and run sections",
		core.Drop:             "load.drop",
		core.Verify:           "load.verify",
		core.Seed:             "the top-level seed",
		core.MaxErrorRate:     "run.max_error_rate",
		core.StopOnErrorRate:  "run.stop_on_error_rate",
		"db":                  "targets[].driver",
		core.WarmupSteady:     "run.warmup: {until: steady, max: D}",
		// The results directory holds every trial's summary and interval
		// log; a trial's own output files would collide with the
		// loaders'.
		core.Exporter:      "the results directory (trials.csv, timeseries.csv)",
		core.ExportFile:    "the results directory (trials.csv, timeseries.csv)",
		core.JSONOutput:    "the results directory (trials.csv, timeseries.csv)",
		core.HdrLog:        "the results directory (hdr/TRIAL.hlog)",
		core.HdrFileOutput: "the results directory (hdr/TRIAL.hlog)",
		core.HdrOutputPath: "the results directory (hdr/TRIAL.hlog)",
	}
}

// axisThreads and axisTarget are the matrix axes that set run settings
// rather than properties.
const (
	axisThreads = "threads"
	axisTarget  = "target"
)

// axisSuggestions are the properties most often swept, offered when a
// matrix key is unknown (the full list of known properties is private to
// package workload; a test checks these are all known).
func axisSuggestions() []string {
	return []string{
		axisThreads, axisTarget, core.RecordCount, core.FieldCount, core.FieldLength, core.FieldLengthDistribution,
		core.ReadProportion, core.UpdateProportion, core.InsertProportion, core.ScanProportion, core.ReadModifyWrite,
		core.DeleteProportion, core.TransferProportion, core.RequestDistribution, core.ZipfianConstant, core.HotspotDataFraction, core.HotspotOpnFraction,
		core.MaxScanLength, core.ScanLengthDistribution, core.InsertOrder, core.ReadAllFields, core.WriteAllFields, core.DataIntegrity,
	}
}

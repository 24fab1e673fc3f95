package workload

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dbarena/dbarena/internal/suggest"
	"github.com/dbarena/dbarena/properties"
)

// knownProperties lists every property dbarena reads or deliberately
// accepts from YCSB: CoreWorkload's, the client's and the measurement
// ones (accepted so YCSB files do not warn, though dbarena always measures
// with HdrHistograms).
func knownProperties() []string {
	return []string{
		// CoreWorkload
		"table", "recordcount", "operationcount", "insertstart", "insertcount", "fieldcount",
		"fieldnameprefix", "fieldlength", "minfieldlength", "fieldlengthdistribution", "readallfields",
		"writeallfields", "readproportion", "updateproportion", "insertproportion", "scanproportion",
		"readmodifywriteproportion", "deleteproportion", "requestdistribution", "zipfianconstant",
		"hotspotdatafraction", "hotspotopnfraction", "exponential.percentile", "exponential.frac",
		"minscanlength", "maxscanlength", "scanlengthdistribution", "insertorder", "zeropadding",
		"dataintegrity", "core_workload_insertion_retry_limit", "core_workload_insertion_retry_interval",
		"fieldlengthhistogram",
		// YCSB client and measurement
		"workload", "db", "exporter", "exportfile", "threadcount", "target", "maxexecutiontime",
		"status.interval", "measurementtype", "measurement.interval", "measurement.trackjvm",
		"measurement.raw.output_file", "measurement.raw.no_summary", "measurement.histogram.verbose",
		"hdrhistogram.percentiles", "hdrhistogram.fileoutput", "hdrhistogram.output.path",
		"histogram.buckets", "timeseries.granularity", "reportlatencyforeacherror",
		"latencytrackederrors", "dotransactions", "batchsize",
		// dbarena
		"seed", "warmup.time", "warmup.operations", "warmup.steady", "json.output", "hdr.log", "late.threshold",
		"stop-on-error-rate", "max-error-rate", "stop.grace", "schema.create", "drop", "verify", "stages",
		// YCSB's JDBC binding, read by the postgres and mysql drivers
		"db.url", "db.user", "db.passwd", "db.driver",
		// YCSB's cassandra-cql and redis bindings, read by the cql and redis drivers
		"hosts", "port", "cassandra.keyspace", "cassandra.username", "cassandra.password",
		"cassandra.readconsistencylevel", "cassandra.writeconsistencylevel", "cassandra.maxconnections",
		"cassandra.connecttimeoutmillis", "cassandra.readtimeoutmillis", "cassandra.tracing", "cassandra.localdc",
		"redis.host", "redis.port",
	}
}

// KnownProperty reports whether dbarena knows key.
func KnownProperty(key string) bool {
	for _, k := range knownProperties() {
		if k == key {
			return true
		}
	}
	return false
}

// Warning is a property dbarena does not know.
type Warning struct {
	Key    string
	Source properties.Source
	// Suggestion is the closest known property, if one is close.
	Suggestion string
}

// String renders the warning for a log line.
func (w Warning) String() string {
	s := fmt.Sprintf("%s: unknown property %q is ignored", w.Source, w.Key)
	if w.Suggestion != "" {
		s += fmt.Sprintf(" (did you mean %q?)", w.Suggestion)
	}
	return s
}

func unknownWarnings(p *properties.Set, driverPrefixes []string) []Warning {
	var out []Warning
	for _, k := range p.Keys() {
		if KnownProperty(k) {
			continue
		}
		if prefix, _, ok := strings.Cut(k, "."); ok && slices.Contains(driverPrefixes, prefix) {
			continue
		}
		_, src, _ := p.Lookup(k)
		out = append(out, Warning{Key: k, Source: src, Suggestion: closest(k)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// SuggestProperty returns the known property nearest to key, or "" when
// none is close: for the "did you mean" of callers that refuse unknown
// properties rather than warn.
func SuggestProperty(key string) string { return closest(key) }

// closest returns the known property nearest to key by edit distance, if
// it is at most 3 edits away.
func closest(key string) string {
	best, bestD := "", 4
	for _, k := range knownProperties() {
		if d := suggest.Distance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

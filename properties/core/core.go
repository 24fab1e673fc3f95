// Package core names every core property once: YCSB's CoreWorkload,
// client and measurement properties, the YCSB bindings' that drivers
// accept, and dbarena's own. Packages read and set a core property by
// its name here, never by a string literal of their own, and the list
// of properties dbarena knows (Known) is this one. Each property's
// default lives with the code that parses it into a typed value:
// workload.DefaultConfig for the workload's, runner.ParseConfig for the
// run's, and the constants below for the client's.
package core

// YCSB's CoreWorkload.
const (
	Table                   = "table"
	RecordCount             = "recordcount"
	OperationCount          = "operationcount"
	InsertStart             = "insertstart"
	InsertCount             = "insertcount"
	FieldCount              = "fieldcount"
	FieldNamePrefix         = "fieldnameprefix"
	FieldLength             = "fieldlength"
	MinFieldLength          = "minfieldlength"
	FieldLengthDistribution = "fieldlengthdistribution"
	FieldLengthHistogram    = "fieldlengthhistogram"
	ReadAllFields           = "readallfields"
	WriteAllFields          = "writeallfields"
	ReadProportion          = "readproportion"
	UpdateProportion        = "updateproportion"
	InsertProportion        = "insertproportion"
	ScanProportion          = "scanproportion"
	ReadModifyWrite         = "readmodifywriteproportion"
	DeleteProportion        = "deleteproportion"
	RequestDistribution     = "requestdistribution"
	ZipfianConstant         = "zipfianconstant"
	HotspotDataFraction     = "hotspotdatafraction"
	HotspotOpnFraction      = "hotspotopnfraction"
	ExponentialPercentile   = "exponential.percentile"
	ExponentialFrac         = "exponential.frac"
	MinScanLength           = "minscanlength"
	MaxScanLength           = "maxscanlength"
	ScanLengthDistribution  = "scanlengthdistribution"
	InsertOrder             = "insertorder"
	ZeroPadding             = "zeropadding"
	DataIntegrity           = "dataintegrity"
	InsertionRetryLimit     = "core_workload_insertion_retry_limit"
	InsertionRetryInterval  = "core_workload_insertion_retry_interval"
)

// WorkloadKind names a workload's kind: core (YCSB's CoreWorkload, the
// default), ledger or tpcc (package workload's kind table).
const WorkloadKind = "workload.kind"

// dbarena's ledger: transfers between accounts whose balances sum to a
// constant, checked after the run (docs/guide/ledger.md).
const (
	TransferProportion = "transferproportion"
	LedgerBalance      = "ledger.balance"
	LedgerFloor        = "ledger.floor"
	LedgerMaxAmount    = "ledger.maxamount"
	// LedgerAuditInterval is how often a ledger's balances are summed
	// in one snapshot during its run (0: only the audit after it).
	LedgerAuditInterval = "ledger.audit.interval"
)

// dbarena's TPC-C (docs/guide/tpcc.md): its scale, its mix, its pacing
// mode and the scale of the spec mode's keying and think times.
const (
	TPCCWarehouses = "tpcc.warehouses"
	TPCCMix        = "tpcc.mix"
	TPCCMode       = "tpcc.mode"
	TPCCTimeScale  = "tpcc.timescale"
)

// YCSB's client and measurement properties. dbarena always measures
// with HdrHistograms: the measurement ones are accepted so that YCSB
// files do not warn.
const (
	Workload         = "workload"
	DB               = "db"
	Exporter         = "exporter"
	ExportFile       = "exportfile"
	ThreadCount      = "threadcount"
	Target           = "target"
	MaxExecutionTime = "maxexecutiontime"
	DoTransactions   = "dotransactions"
	BatchSize        = "batchsize"
	StatusInterval   = "status.interval"
)

// measurementProperties are YCSB's measurement properties, accepted and
// ignored.
func measurementProperties() []string {
	return []string{"measurementtype", "measurement.interval", "measurement.trackjvm",
		"measurement.raw.output_file", "measurement.raw.no_summary", "measurement.histogram.verbose",
		"hdrhistogram.percentiles", HdrFileOutput, HdrOutputPath, "histogram.buckets", "timeseries.granularity",
		"reportlatencyforeacherror", "latencytrackederrors"}
}

// YCSB's HdrHistogram output files, which an experiment's results
// directory replaces.
const (
	HdrFileOutput = "hdrhistogram.fileoutput"
	HdrOutputPath = "hdrhistogram.output.path"
)

// dbarena's own.
const (
	Seed             = "seed"
	WarmupTime       = "warmup.time"
	WarmupOperations = "warmup.operations"
	WarmupSteady     = "warmup.steady"
	JSONOutput       = "json.output"
	HdrLog           = "hdr.log"
	LateThreshold    = "late.threshold"
	StopOnErrorRate  = "stop-on-error-rate"
	MaxErrorRate     = "max-error-rate"
	StopGrace        = "stop.grace"
	AuditTimeout     = "audit.timeout"
	SchemaCreate     = "schema.create"
	Drop             = "drop"
	Verify           = "verify"
	Stages           = "stages"
)

// The YCSB bindings' properties the drivers accept: JDBC's (postgres,
// mysql), cassandra-cql's (cql) and redis's.
func bindingProperties() []string {
	return []string{"db.url", "db.user", "db.passwd", "db.driver",
		"hosts", "port", "cassandra.keyspace", "cassandra.username", "cassandra.password",
		"cassandra.readconsistencylevel", "cassandra.writeconsistencylevel", "cassandra.maxconnections",
		"cassandra.connecttimeoutmillis", "cassandra.readtimeoutmillis", "cassandra.tracing", "cassandra.localdc",
		"redis.host", "redis.port"}
}

// DefaultThreadCount is threadcount's default, as in YCSB.
const DefaultThreadCount = 1

// Known lists every property dbarena reads or deliberately accepts.
func Known() []string {
	out := []string{
		Table, RecordCount, OperationCount, InsertStart, InsertCount, FieldCount, FieldNamePrefix, FieldLength,
		MinFieldLength, FieldLengthDistribution, FieldLengthHistogram, ReadAllFields, WriteAllFields,
		ReadProportion, UpdateProportion, InsertProportion, ScanProportion, ReadModifyWrite, DeleteProportion,
		RequestDistribution, ZipfianConstant, HotspotDataFraction, HotspotOpnFraction, ExponentialPercentile,
		ExponentialFrac, MinScanLength, MaxScanLength, ScanLengthDistribution, InsertOrder, ZeroPadding,
		DataIntegrity, InsertionRetryLimit, InsertionRetryInterval,
		WorkloadKind, TransferProportion, LedgerBalance, LedgerFloor, LedgerMaxAmount, LedgerAuditInterval, TPCCWarehouses, TPCCMix, TPCCMode, TPCCTimeScale,
		Workload, DB, Exporter, ExportFile, ThreadCount, Target, MaxExecutionTime, DoTransactions, BatchSize,
		StatusInterval,
		Seed, WarmupTime, WarmupOperations, WarmupSteady, JSONOutput, HdrLog, LateThreshold, StopOnErrorRate,
		MaxErrorRate, StopGrace, AuditTimeout, SchemaCreate, Drop, Verify, Stages,
	}
	out = append(out, measurementProperties()...)
	return append(out, bindingProperties()...)
}

package driver

import "context"

// Schema describes the table a YCSB load writes: the names a driver needs
// to create it and to check that it exists with the expected shape.
type Schema struct {
	// Table is the YCSB table name (property table, default usertable).
	Table string
	// Fields are the field names in order (field0, field1, ...).
	Fields []string
	// FieldLength is the largest value length a field holds, in bytes; SQL
	// drivers size nothing from it but may warn about column limits.
	FieldLength int
}

// SchemaManager is implemented by DBs that create and check their own
// schema. The load phase calls DropSchema when asked to start clean, then
// CreateSchema; the run phase calls CheckSchema so that a missing table is
// one clear error rather than millions of failed operations.
type SchemaManager interface {
	// CreateSchema creates the database or keyspace and the table when they
	// are missing, with the options in the driver's properties. It leaves an
	// existing table as it is.
	CreateSchema(ctx context.Context, s Schema) error
	// DropSchema removes the table; a missing table is not an error.
	DropSchema(ctx context.Context, s Schema) error
	// CheckSchema reports a clear error when the table is missing or lacks
	// a field column, naming what was expected.
	CheckSchema(ctx context.Context, s Schema) error
}

// DatabaseCreator is implemented by DBs whose load can create the
// database (or keyspace) a workload's own tables go in, such as TPC-C's,
// which names no YCSB table. A database already there is not an error.
type DatabaseCreator interface {
	CreateDatabase(ctx context.Context) error
}

// Counter is one event count a driver keeps of its own: retries done by a
// client library, throttled requests, consumed capacity units.
type Counter struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	// Help says what the counter measures, in a few words.
	Help string `json:"help,omitempty"`
}

// CounterSource is implemented by DBs that count events the runner cannot
// see (a client library's internal retries, DynamoDB's consumed capacity).
// Counters are cumulative since Open and read once after a run.
type CounterSource interface {
	Counters() []Counter
}

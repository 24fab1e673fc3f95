package workload

import (
	"math"

	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/workload/generator"
)

// Bounds on the sizes a workload may ask for. Each worker holds a record
// (and a batch of them when loading) in memory, so these keep one
// worker's buffers in megabytes; values past them crashed the process
// with an out-of-memory error before the first operation.
const (
	// MaxFieldCount bounds fieldcount: PostgreSQL allows 1,600 columns and
	// MySQL 4,096, and YCSB's default is 10; 10,000 leaves room for
	// document stores.
	MaxFieldCount = 10_000
	// MaxRecordBytes bounds fieldcount x fieldlength, the size of one
	// record's values: MongoDB's 16 MiB document limit, the largest of
	// the databases dbarena drives (DynamoDB's item limit is 400 KB).
	MaxRecordBytes = 16 << 20
	// MaxFieldNamePrefix bounds fieldnameprefix in bytes: every record
	// carries its field names (a store that keeps them per record, as
	// the memory driver and document stores do, holds fieldcount copies
	// of it), and column names are short (PostgreSQL cuts identifiers
	// at 63 bytes, Cassandra allows 48 characters).
	MaxFieldNamePrefix = 1_000
	// MaxZeroPadding bounds zeropadding: a key number has at most 19
	// digits, and 1,000 already makes keys of about 1 KB, half of
	// DynamoDB's 2,048-byte partition key limit.
	MaxZeroPadding = 1_000
	// MaxScanLength bounds maxscanlength: a scan's records are held in
	// memory, and a million records of YCSB's default 1 KB is 1 GB per
	// worker. YCSB's default is 1,000.
	MaxScanLength = 1_000_000
	// MaxZetaItems bounds the items a zipfian generator sums zeta over
	// when it starts (requestdistribution=latest over recordcount, or
	// zipfian with a zipfianconstant other than 0.99 over the key space):
	// about 10 ms per million items, so YCSB's own ten billion items take
	// about 100 s, and more would look like a hang.
	MaxZetaItems = 10_000_000_000
	// maxKeyNumber bounds the key numbers a run may use, the inserts it
	// expects included, so that key arithmetic cannot overflow an int64.
	maxKeyNumber = math.MaxInt64 / 2
)

// validateLimits checks the bounds above. It runs before the other
// checks, whose arithmetic (insertstart + insertcount) could overflow.
func (c Config) validateLimits() error {
	switch {
	case c.FieldCount > MaxFieldCount:
		return c.errorf(core.FieldCount, "%d: at most %d fields", c.FieldCount, MaxFieldCount)
	case c.FieldLength > MaxRecordBytes:
		return c.errorf(core.FieldLength, "%d: at most %d bytes (16 MiB) per field", c.FieldLength, MaxRecordBytes)
	case c.FieldLength*int64(c.FieldCount) > MaxRecordBytes:
		return c.errorf(core.FieldLength, "%d x fieldcount %d = %d bytes per record: at most %d (16 MiB)",
			c.FieldLength, c.FieldCount, c.FieldLength*int64(c.FieldCount), MaxRecordBytes)
	case len(c.FieldNamePrefix) > MaxFieldNamePrefix:
		return c.errorf(core.FieldNamePrefix, "%d bytes: at most %d", len(c.FieldNamePrefix), MaxFieldNamePrefix)
	case c.ZeroPadding > MaxZeroPadding:
		return c.errorf(core.ZeroPadding, "%d: at most %d digits", c.ZeroPadding, MaxZeroPadding)
	case c.MaxScanLength > MaxScanLength:
		return c.errorf(core.MaxScanLength, "%d: at most %d records per scan", c.MaxScanLength, MaxScanLength)
	}
	if keys := c.keySpace(); keys > maxKeyNumber {
		key := core.OperationCount
		if float64(c.InsertStart)+float64(c.EffectiveInsertCount()) > maxKeyNumber {
			key = core.InsertCount
			if c.InsertCount == 0 {
				key = core.RecordCount
			}
		}
		return c.errorf(key, "insertstart %d + insertcount %d + 2 x operationcount %d x insertproportion %g = %.4g key numbers: at most %d",
			c.InsertStart, c.EffectiveInsertCount(), c.OperationCount, c.InsertProportion, keys, int64(maxKeyNumber))
	}
	if c.RequestDistribution == DistLatest && c.RecordCount > MaxZetaItems {
		return c.errorf(core.RecordCount, "%d with requestdistribution=latest: at most %d records (the latest chooser sums zeta over every record when it starts)",
			c.RecordCount, int64(MaxZetaItems))
	}
	if c.RequestDistribution == DistZipfian && c.ZipfianConstant != generator.ZipfianConstant && c.keySpace() > MaxZetaItems {
		return c.errorf(core.ZipfianConstant, "%g over %.4g keys: at most %d keys with a constant other than %g (the zipfian chooser sums zeta over every key when it starts; %g uses YCSB's precomputed sum)",
			c.ZipfianConstant, c.keySpace(), int64(MaxZetaItems), generator.ZipfianConstant, generator.ZipfianConstant)
	}
	return nil
}

// keySpace is the highest key number a run may reach, as a float64 so
// that it cannot overflow: the records inserted by the load plus the
// zipfian key space YCSB sizes for the run's inserts (twice those
// expected, see New).
func (c Config) keySpace() float64 {
	return float64(c.InsertStart) + float64(c.EffectiveInsertCount()) + 2*float64(c.OperationCount)*c.InsertProportion
}

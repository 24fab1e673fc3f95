package aerospike

import (
	"context"
	"errors"
	"fmt"

	as "github.com/aerospike/aerospike-client-go/v8"
	"github.com/aerospike/aerospike-client-go/v8/types"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/record"
)

// session is one worker's handle. The client is shared; the session keeps
// the bins of a single write and the record list of a batch between
// operations, so that they are not allocated every time.
//
// The Go client takes no context: a command runs until it completes or
// aerospike.timeout expires. A session checks the context before each
// command, so a stopped run issues no new ones.
type session struct {
	db     *DB
	bins   []as.Bin
	binPtr []*as.Bin
	batch  []as.BatchRecordIfc
}

var (
	_ driver.Session       = (*session)(nil)
	_ driver.BatchInserter = (*session)(nil)
)

func newSession(db *DB) *session { return &session{db: db} }

// errScan explains why Scan is not offered.
func errScan() error {
	return &driver.Error{Class: driver.ClassUnsupported,
		Err: errors.New("aerospike has no ordered key scan (records are placed by key digest); YCSB's binding does not implement scan either")}
}

// key returns the Aerospike key of a YCSB key in a table.
func (s *session) key(table, key string) (*as.Key, error) {
	k, err := as.NewKey(s.db.cfg.Namespace, s.db.cfg.setName(table), key)
	if err != nil {
		return nil, driver.Errorf(driver.ClassBadRequest, "key %q in set %s: %v", key, s.db.cfg.setName(table), err)
	}
	return k, nil
}

// fail classifies a failed command and names it.
func (s *session) fail(op, table, key string, err error) error {
	return &driver.Error{Class: s.db.errs.classOf(err),
		Err: fmt.Errorf("%s %s/%s/%s: %w", op, s.db.cfg.Namespace, s.db.cfg.setName(table), key, err)}
}

// Read implements driver.Session. Bins that are blobs (YCSB's layout) or
// strings are returned; other types are skipped.
func (s *session) Read(ctx context.Context, table, key string, fields []string, dst record.Record) (record.Record, error) {
	dst = dst[:0]
	if err := ctx.Err(); err != nil {
		return dst, err
	}
	k, err := s.key(table, key)
	if err != nil {
		return dst, err
	}
	rec, aerr := s.db.client.Get(s.db.pol.read, k, fields...)
	if aerr != nil {
		if aerr.Matches(types.KEY_NOT_FOUND_ERROR) {
			return dst, driver.ErrNotFound
		}
		return dst, s.fail("read", table, key, aerr)
	}
	for name, v := range rec.Bins {
		switch v := v.(type) {
		case []byte:
			dst = dst.Append(name, v)
		case string:
			dst = dst.Append(name, []byte(v))
		}
	}
	return dst, nil
}

// Scan implements driver.Session: Aerospike cannot scan keys in order.
func (s *session) Scan(context.Context, string, string, int, []string, []record.Record) ([]record.Record, error) {
	return nil, errScan()
}

// setBins fills the session's bins with the values, as blobs.
func (s *session) setBins(values record.Record) ([]*as.Bin, error) {
	if cap(s.bins) < len(values) {
		s.bins = make([]as.Bin, len(values))
		s.binPtr = make([]*as.Bin, len(values))
	}
	s.bins, s.binPtr = s.bins[:len(values)], s.binPtr[:len(values)]
	for i, f := range values {
		if err := checkBinName(f.Name); err != nil {
			return nil, err
		}
		s.bins[i] = as.Bin{Name: f.Name, Value: as.BytesValue(f.Value)}
		s.binPtr[i] = &s.bins[i]
	}
	return s.binPtr, nil
}

// write puts the values with a policy.
func (s *session) write(ctx context.Context, op string, policy *as.WritePolicy, table, key string, values record.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	bins, err := s.setBins(values)
	if err != nil {
		return err
	}
	k, err := s.key(table, key)
	if err != nil {
		return err
	}
	if aerr := s.db.client.PutBins(policy, k, bins...); aerr != nil {
		if op == "update" && aerr.Matches(types.KEY_NOT_FOUND_ERROR) {
			return driver.ErrNotFound
		}
		return s.fail(op, table, key, aerr)
	}
	return nil
}

// Update implements driver.Session: the given bins of an existing record
// change, the others stay; a missing record is NOT_FOUND.
func (s *session) Update(ctx context.Context, table, key string, values record.Record) error {
	return s.write(ctx, "update", s.db.pol.update, table, key, values)
}

// Insert implements driver.Session: an existing key is CONFLICT.
func (s *session) Insert(ctx context.Context, table, key string, values record.Record) error {
	return s.write(ctx, "insert", s.db.pol.insert, table, key, values)
}

// Delete implements driver.Session.
func (s *session) Delete(ctx context.Context, table, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	k, err := s.key(table, key)
	if err != nil {
		return err
	}
	existed, aerr := s.db.client.Delete(s.db.pol.delete, k)
	if aerr != nil {
		return s.fail("delete", table, key, aerr)
	}
	if !existed {
		return driver.ErrNotFound
	}
	return nil
}

// InsertBatch implements driver.BatchInserter with one BatchOperate of
// create-only writes (server 6.0 or later). Records are written
// independently: an existing key fails its own record, the others are
// written, and the batch reports CONFLICT.
func (s *session) InsertBatch(ctx context.Context, table string, keys []string, values []record.Record) error {
	if len(keys) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.batch = s.batch[:0]
	for i, key := range keys {
		// Each record keeps its own operations until the batch is sent.
		ops := make([]*as.Operation, len(values[i]))
		for j, f := range values[i] {
			if err := checkBinName(f.Name); err != nil {
				return err
			}
			ops[j] = as.PutOp(&as.Bin{Name: f.Name, Value: as.BytesValue(f.Value)})
		}
		k, err := s.key(table, key)
		if err != nil {
			return err
		}
		s.batch = append(s.batch, as.NewBatchWrite(s.db.pol.batchWrite, k, ops...))
	}
	if aerr := s.db.client.BatchOperate(s.db.pol.batch, s.batch); aerr != nil {
		return s.batchError(table, keys, aerr)
	}
	var failed []error
	for i, r := range s.batch {
		br := r.BatchRec()
		if br.ResultCode == types.OK {
			continue
		}
		var err error = br.Err
		if br.Err == nil {
			err = &as.AerospikeError{ResultCode: br.ResultCode}
		}
		failed = append(failed, s.fail("insert", table, keys[i], err))
	}
	if len(failed) > 0 {
		// The batch is reported with the class of its first failure.
		return &driver.Error{Class: driver.Classify(failed[0]),
			Err: fmt.Errorf("insert batch of %d into %s/%s: %d failed: %w", len(keys), s.db.cfg.Namespace, s.db.cfg.setName(table), len(failed), errors.Join(failed...))}
	}
	return nil
}

// batchError reports a batch that failed as a whole.
func (s *session) batchError(table string, keys []string, err error) error {
	return &driver.Error{Class: s.db.errs.classOf(err),
		Err: fmt.Errorf("insert batch of %d (%s..%s) into %s/%s: %w", len(keys), keys[0], keys[len(keys)-1], s.db.cfg.Namespace, s.db.cfg.setName(table), err)}
}

// Close implements driver.Session. The client belongs to the DB.
func (s *session) Close() error { return nil }

package cql

import (
	"context"
	"errors"
	"sync"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/dbarena/dbarena/record"
)

// defaultBatchBytes caps the keys and values of one unlogged batch so that
// it stays under Cassandra's batch_size_warn_threshold (5 KiB by default,
// as the server counts it: about 1.3 times the raw bytes). Above it the
// server logs a warning for every batch, and a load of millions of records
// would write as many log lines; at 50 KiB (batch_size_fail_threshold) it
// refuses the batch. Measured on one node with YCSB's 1 KB records in
// runner batches of 50: 4 KiB batches (3 records) cost 24-32 us of client
// CPU per record against 42-55 us for concurrent single-row inserts, at
// similar throughput; 40 KiB batches cost 15-21 us and load fastest but
// log every batch (docs/drivers/cql.md).
const defaultBatchBytes = 4 << 10

// loader sends the load phase's batches. In unlogged mode it keeps gocql
// batches and their argument slots from one call to the next. In
// concurrent mode it holds helper sessions, each with statements of its
// own, that insert a share of the records in parallel: every record goes
// straight to one of its replicas (token-aware), as single inserts would,
// but a worker has many in flight.
type loader struct {
	helpers []*session
	chunks  []*chunk
	errs    []error
}

// chunk is one unlogged batch being filled.
type chunk struct {
	batch *gocql.Batch
	args  [][]arg
	argv  [][]any
	first string // key of the first record, for error messages
}

// InsertBatch implements driver.BatchInserter.
//
// Each YCSB key is its own partition, so a CQL batch of them is a
// multi-partition batch: the coordinator forwards every row to its
// replicas and holds the batch until they answer, which Cassandra's
// documentation calls an anti-pattern for large batches. The default
// (cql.load=unlogged) therefore sends small UNLOGGED batches, capped by
// cql.load.batch.bytes (4 KiB): one request carries a few records, which
// is what saves client CPU, while the coordinator's fan-out stays a few
// rows. cql.load=concurrent sends the records as concurrent single-row
// inserts, each routed to a replica of its own key. Measurements are in
// docs/drivers/cql.md. With cql.lwt the inserts are always concurrent:
// conditional statements in one batch must share a partition.
func (s *session) InsertBatch(ctx context.Context, table string, keys []string, values []record.Record) error {
	if s.load == nil {
		s.load = &loader{}
	}
	if s.db.cfg.Load == "unlogged" && !s.db.cfg.LWT {
		return s.insertUnlogged(ctx, table, keys, values)
	}
	return s.insertConcurrent(ctx, table, keys, values)
}

// insertConcurrent inserts keys[i] with values[i] from up to
// cql.load.concurrency goroutines, each with a helper session of its own.
func (s *session) insertConcurrent(ctx context.Context, table string, keys []string, values []record.Record) error {
	l := s.load
	k := min(s.db.cfg.LoadConcurrency, len(keys))
	for len(l.helpers) < k {
		l.helpers = append(l.helpers, newSession(s.db))
	}
	// Record i goes to helper i mod k, so each helper is used by one
	// goroutine only.
	return l.each(len(keys), k, func(i int) error {
		return l.helpers[i%k].Insert(ctx, table, keys[i], values[i])
	})
}

// insertUnlogged splits the records into UNLOGGED batches of at most
// cql.load.batch.bytes of keys and values each (a larger record goes
// alone) and sends them concurrently, so a worker keeps as many requests
// in flight as with concurrent inserts: sent one after the other, 3-record
// batches loaded a three-node cluster 35% slower than concurrent inserts.
func (s *session) insertUnlogged(ctx context.Context, table string, keys []string, values []record.Record) error {
	l := s.load
	n := 0
	for start := 0; start < len(keys); n++ {
		c := l.chunk(s, n)
		c.first = keys[start]
		size := 0
		end := start
		for end < len(keys) && (end == start || size+recordBytes(keys[end], values[end]) <= s.db.cfg.BatchBytes) {
			size += recordBytes(keys[end], values[end])
			c.add(s, table, end-start, keys[end], values[end])
			end++
		}
		start = end
	}
	return l.each(n, s.db.cfg.LoadConcurrency, func(i int) error {
		c := l.chunks[i]
		if err := c.batch.ExecContext(ctx); err != nil {
			return opError(ctx, "batch insert", table, c.first, err)
		}
		return nil
	})
}

// each runs do(0..n-1) on up to k goroutines and joins their first errors.
// A single call runs inline.
func (l *loader) each(n, k int, do func(i int) error) error {
	if n == 1 {
		return do(0)
	}
	k = min(k, n)
	if cap(l.errs) < k {
		l.errs = make([]error, k)
	}
	errs := l.errs[:k]
	clear(errs)
	var wg sync.WaitGroup
	for j := 0; j < k; j++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := j; i < n; i += k {
				if err := do(i); err != nil {
					errs[j] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// chunk returns the i-th batch, emptied.
func (l *loader) chunk(s *session, i int) *chunk {
	for len(l.chunks) <= i {
		b := s.db.session.Batch(gocql.UnloggedBatch)
		b.Consistency(s.db.cfg.Write)
		if s.db.tracer != nil {
			b.Trace(s.db.tracer)
		}
		l.chunks = append(l.chunks, &chunk{batch: b})
	}
	c := l.chunks[i]
	c.batch.Entries = c.batch.Entries[:0]
	return c
}

// add appends one insert to the batch, binding it through argument slots
// kept from one batch to the next.
func (c *chunk) add(s *session, table string, i int, key string, values record.Record) {
	for len(c.args) <= i {
		c.args = append(c.args, nil)
		c.argv = append(c.argv, nil)
	}
	n := 1 + len(values)
	if cap(c.args[i]) < n {
		c.args[i] = make([]arg, n)
		c.argv[i] = make([]any, n)
	}
	args, argv := c.args[i][:n], c.argv[i][:n]
	setKey(&args[0], key)
	argv[0] = &args[0]
	for j := range values {
		args[j+1].b = values[j].Value
		argv[j+1] = &args[j+1]
	}
	// The statement text comes from the session's insert statement for the
	// same field set, so it is built once.
	st := s.lookupValues(opInsert, table, values)
	c.batch.Query(st.q.Statement(), argv...)
}

func recordBytes(key string, values record.Record) int {
	n := len(key)
	for _, f := range values {
		n += len(f.Value)
	}
	return n
}

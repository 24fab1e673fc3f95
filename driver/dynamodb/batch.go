package dynamodb

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/record"
)

// batchLimit is the most items one BatchWriteItem request may carry.
const batchLimit = 25

// batchBackoffBase is the first wait before unprocessed items are sent
// again; it doubles each round up to dynamodb.maxbackoff. AWS asks for
// exponential backoff here without fixing a base. Capacity refills per
// second, so a few doublings from 50 ms (50, 100, 200, 400 ms) span the
// second a throttled partition needs, while a briefly throttled load
// loses little time.
const batchBackoffBase = 50 * time.Millisecond

// batchBuf holds one session's reusable BatchWriteItem request.
type batchBuf struct {
	pk    string
	in    dynamodb.BatchWriteItemInput
	byTbl map[string][]types.WriteRequest
	reqs  [batchLimit]types.WriteRequest
	puts  [batchLimit]types.PutRequest
	items [batchLimit]map[string]types.AttributeValue
	keys  [batchLimit]types.AttributeValueMemberS
	vals  []types.AttributeValueMemberS
}

func (b *batchBuf) init(pk string) {
	b.pk = pk
	b.byTbl = make(map[string][]types.WriteRequest, 1)
	b.in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	for i := range b.items {
		b.items[i] = make(map[string]types.AttributeValue)
		b.puts[i].Item = b.items[i]
		b.reqs[i].PutRequest = &b.puts[i]
	}
}

// fill writes one chunk of at most batchLimit records into the request.
func (b *batchBuf) fill(table string, keys []string, values []record.Record) {
	nv := 0
	for _, v := range values {
		nv += len(v)
	}
	if cap(b.vals) < nv {
		b.vals = make([]types.AttributeValueMemberS, nv)
	}
	vals := b.vals[:nv]
	vi := 0
	for i, k := range keys {
		m := b.items[i]
		clear(m)
		for _, f := range values[i] {
			vals[vi].Value = string(f.Value)
			m[f.Name] = &vals[vi]
			vi++
		}
		b.keys[i].Value = k
		m[b.pk] = &b.keys[i]
	}
	clear(b.byTbl)
	b.byTbl[table] = b.reqs[:len(keys)]
	b.in.RequestItems = b.byTbl
}

// InsertBatch implements driver.BatchInserter with BatchWriteItem, 25
// items per request. Items the service returns unprocessed (throttled
// partitions) are sent again after a backoff, up to dynamodb.maxretries
// times, and counted. BatchWriteItem takes no conditions, so a batch
// replaces existing items even with conditional writes on.
func (s *session) InsertBatch(ctx context.Context, table string, keys []string, values []record.Record) error {
	for start := 0; start < len(keys); start += batchLimit {
		end := min(start+batchLimit, len(keys))
		if err := s.writeChunk(ctx, table, keys[start:end], values[start:end]); err != nil {
			return err
		}
	}
	return nil
}

func (s *session) writeChunk(ctx context.Context, table string, keys []string, values []record.Record) error {
	b := &s.batch
	b.fill(table, keys, values)
	for round := 0; ; round++ {
		out, err := s.c.BatchWriteItem(ctx, &b.in)
		if err != nil {
			return s.db.opError("batch insert", table, err)
		}
		pending := 0
		for _, reqs := range out.UnprocessedItems {
			pending += len(reqs)
		}
		if pending == 0 {
			return nil
		}
		s.db.acct.unprocessed.Add(int64(pending))
		if round >= s.db.cfg.MaxRetries {
			return driver.Errorf(driver.ClassThrottled,
				"dynamodb batch insert %s: %d of %d items still unprocessed after %d retries (dynamodb.maxretries)",
				table, pending, len(keys), round)
		}
		if err := s.backoff(ctx, batchBackoffBase, s.db.cfg.MaxBackoff, round); err != nil {
			return s.db.opError("batch insert", table, err)
		}
		b.in.RequestItems = out.UnprocessedItems
	}
}

// backoff waits before round+1 of a retry: base doubling up to ceiling,
// jittered over the upper half, so that sessions throttled (or
// transfers that collided) together do not retry in step.
func (s *session) backoff(ctx context.Context, base, ceiling time.Duration, round int) error {
	d := min(base<<min(round, 16), ceiling)
	d = d/2 + time.Duration(s.rng.Int64N(int64(d/2)+1))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

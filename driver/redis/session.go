package redis

import (
	"context"
	"fmt"
	"unsafe"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/record"
)

// session is one worker's handle.
type session struct {
	db *DB
	// own is the session's own connection, on a single node whose pool
	// has one per worker: taking a connection from the shared pool and
	// putting it back was 1.4 us of the 7 us of client CPU go-redis spends
	// on a workload C read (pprof, docs/drivers/redis.md).
	own *goredis.Conn
	// args is reused for the arguments of reads and the field/value pairs
	// of writes; go-redis is done with it when the call returns.
	args []any
	keys [1]string
}

var (
	_ driver.Session       = (*session)(nil)
	_ driver.BatchInserter = (*session)(nil)
)

// cmdable is what a session sends commands through: the shared client, or
// a connection of its own.
type cmdable interface {
	goredis.Cmdable
	Process(ctx context.Context, cmd goredis.Cmder) error
}

// conn returns the session's own connection when it keeps one, taking it
// on first use, and the shared client otherwise.
func (s *session) conn() cmdable {
	if s.own != nil {
		return s.own
	}
	if s.db.single != nil && s.db.sticky {
		s.own = s.db.single.Conn()
		return s.own
	}
	return s.db.client
}

// fail classifies an operation's error. A connection that failed is given
// up, so that the next operation takes a fresh one: go-redis reports a
// kept connection's failure again on every later use.
func (s *session) fail(err error) error {
	err = classify(err)
	if s.own != nil {
		switch driver.Classify(err) {
		case driver.ClassUnavailable, driver.ClassTimeout, driver.ClassCanceled:
			_ = s.own.Close()
			s.own = nil
		}
	}
	return err
}

// pipeline returns a MULTI/EXEC pipeline on a single node, where it makes
// a record and its index entry change together, and a plain pipeline on a
// cluster, where the record and the index live in different slots and
// MULTI across slots is refused (CROSSSLOT).
func (s *session) pipeline() goredis.Pipeliner {
	if s.db.cfg.Cluster {
		return s.conn().Pipeline()
	}
	return s.conn().TxPipeline()
}

// pairs fills the session's argument buffer with field, value pairs.
func (s *session) pairs(values record.Record) []any {
	s.args = s.args[:0]
	for _, f := range values {
		s.args = append(s.args, f.Name, f.Value)
	}
	return s.args
}

// Read implements driver.Session: HGETALL for every field, HMGET for some.
// A record with none of the requested fields reads as missing: HMGET
// cannot tell a missing hash from one without those fields, and YCSB
// records always hold every field.
func (s *session) Read(ctx context.Context, table, key string, fields []string, dst record.Record) (record.Record, error) {
	dst = dst[:0]
	if fields == nil {
		return s.readAll(ctx, key, dst)
	}
	vals, err := s.conn().HMGet(ctx, key, fields...).Result()
	if err != nil {
		return dst, s.fail(err)
	}
	dst = appendFields(dst, fields, vals)
	if len(dst) == 0 {
		return dst, driver.ErrNotFound
	}
	return dst, nil
}

// readAll reads every field with HGETALL. Over RESP2 the reply is a flat
// array of names and values, which go-redis's StringSliceCmd reads into
// one buffer per item and hands over as strings without copying; the
// values are copied into dst from them. Of the ways go-redis offers to
// read HGETALL, this was the cheapest in the workload C profile
// (docs/drivers/redis.md): its own HGetAll builds a map, and its raw-reply
// commands copy the reply through io.Copy one item at a time.
func (s *session) readAll(ctx context.Context, key string, dst record.Record) (record.Record, error) {
	s.args = append(s.args[:0], "hgetall", key)
	cmd := goredis.NewStringSliceCmd(ctx, s.args...)
	err := s.conn().Process(ctx, cmd)
	s.args[1] = nil
	if err != nil {
		return dst, s.fail(err)
	}
	vals := cmd.Val()
	if len(vals) == 0 {
		return dst, driver.ErrNotFound
	}
	for i := 0; i+1 < len(vals); i += 2 {
		dst = appendField(dst, vals[i], vals[i+1])
	}
	return dst, nil
}

// appendField appends one field to dst. The name is kept only when the
// slot it overwrites holds another one, so that rereading the same fields
// does not retain go-redis's buffers; the value is copied.
func appendField(dst record.Record, name, value string) record.Record {
	if n := len(dst); n < cap(dst) && dst[:n+1][n].Name == name {
		name = dst[:n+1][n].Name
	}
	return dst.Append(name, bytesOf(value))
}

// bytesOf returns the bytes of s without copying; record.Append copies
// them.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// appendMap appends an HGETALL reply read as a map to dst.
func appendMap(dst record.Record, m map[string]string) record.Record {
	for name, v := range m {
		dst = dst.Append(name, bytesOf(v))
	}
	return dst
}

// appendFields appends the present values of an HMGET reply to dst.
func appendFields(dst record.Record, fields []string, vals []any) record.Record {
	for i, v := range vals {
		if sv, ok := v.(string); ok {
			dst = dst.Append(fields[i], bytesOf(sv))
		}
	}
	return dst
}

// Scan implements driver.Session as YCSB's binding does: the keys whose
// index score (hash) is at least the start key's, at most count of them,
// then one pipelined read per key. Records deleted between the two steps
// are skipped.
func (s *session) Scan(ctx context.Context, table, startKey string, count int, fields []string, dst []record.Record) ([]record.Record, error) {
	dst = dst[:0]
	keys, err := s.conn().ZRangeByScore(ctx, indexKey, &goredis.ZRangeBy{
		Min: scoreArg(startKey), Max: "+inf", Count: int64(count),
	}).Result()
	if err != nil {
		return dst, s.fail(err)
	}
	if len(keys) == 0 {
		return dst, nil
	}
	pipe := s.conn().Pipeline()
	all := make([]*goredis.MapStringStringCmd, 0, len(keys))
	some := make([]*goredis.SliceCmd, 0, len(keys))
	for _, k := range keys {
		if fields == nil {
			all = append(all, pipe.HGetAll(ctx, k))
		} else {
			some = append(some, pipe.HMGet(ctx, k, fields...))
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return dst, s.fail(err)
	}
	for i := range keys {
		var r record.Record
		if n := len(dst); n < cap(dst) {
			r = dst[:n+1][n][:0]
		}
		if fields == nil {
			r = appendMap(r, all[i].Val())
		} else {
			r = appendFields(r, fields, some[i].Val())
		}
		if len(r) > 0 {
			dst = append(dst, r)
		}
	}
	return dst, nil
}

// Update implements driver.Session. With redis.update=checked (default) a
// Lua script writes the fields only when the record exists.
func (s *session) Update(ctx context.Context, table, key string, values record.Record) error {
	args := s.pairs(values)
	if s.db.cfg.Update == UpdateHSet {
		return s.fail(s.conn().HSet(ctx, key, args...).Err())
	}
	s.keys[0] = key
	n, err := s.db.update.Run(ctx, s.conn(), s.keys[:], args...).Int64()
	s.keys[0] = ""
	if err != nil {
		return s.fail(err)
	}
	if n == 0 {
		return driver.ErrNotFound
	}
	return nil
}

// Insert implements driver.Session: HSET of the fields and ZADD to the
// index in one round trip. An existing record is overwritten field by
// field, as in YCSB.
func (s *session) Insert(ctx context.Context, table, key string, values record.Record) error {
	pipe := s.pipeline()
	pipe.HSet(ctx, key, s.pairs(values)...)
	pipe.ZAdd(ctx, indexKey, goredis.Z{Score: float64(score(key)), Member: key})
	_, err := pipe.Exec(ctx)
	return s.fail(err)
}

// Delete implements driver.Session: DEL of the record and ZREM from the
// index in one round trip. A missing record is NOT_FOUND.
func (s *session) Delete(ctx context.Context, table, key string) error {
	pipe := s.pipeline()
	del := pipe.Del(ctx, key)
	pipe.ZRem(ctx, indexKey, key)
	if _, err := pipe.Exec(ctx); err != nil {
		return s.fail(err)
	}
	if del.Val() == 0 {
		return driver.ErrNotFound
	}
	return nil
}

// InsertBatch implements driver.BatchInserter with one pipeline: an HSET
// per record and one ZADD of all their index entries. It is not atomic: a
// failure may leave part of the batch written, which a retried batch
// overwrites.
func (s *session) InsertBatch(ctx context.Context, table string, keys []string, values []record.Record) error {
	if len(keys) == 0 {
		return nil
	}
	pipe := s.conn().Pipeline()
	members := make([]goredis.Z, len(keys))
	for i, k := range keys {
		args := make([]any, 0, 2*len(values[i]))
		for _, f := range values[i] {
			args = append(args, f.Name, f.Value)
		}
		pipe.HSet(ctx, k, args...)
		members[i] = goredis.Z{Score: float64(score(k)), Member: k}
	}
	pipe.ZAdd(ctx, indexKey, members...)
	_, err := pipe.Exec(ctx)
	return s.fail(err)
}

// Close implements driver.Session: the session's own connection goes back
// to the pool.
func (s *session) Close() error {
	if s.own == nil {
		return nil
	}
	err := s.own.Close()
	s.own = nil
	if err != nil {
		return fmt.Errorf("close redis connection to %s: %w", s.db.addr, err)
	}
	return nil
}

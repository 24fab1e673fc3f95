package redis

import (
	"context"
	"unsafe"

	"github.com/redis/rueidis"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/record"
)

// session is one worker's handle. Its buffers are reused from one
// operation to the next: rueidis has written a command out by the time
// its reply is returned, which it always waits for (see DB.Session).
type session struct {
	db *DB
	c  rueidis.Client
	// strs holds a Lua update's field/value arguments.
	strs []string
	keys [1]string
	// cmds holds the commands of one pipelined operation.
	cmds []rueidis.Completed
}

var (
	_ driver.Session       = (*session)(nil)
	_ driver.BatchInserter = (*session)(nil)
)

// str returns the bytes of b as a string without copying. It is only
// handed to rueidis for a command whose reply the operation waits for,
// while the caller keeps b unchanged.
func str(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// bytesOf returns the bytes of s without copying; record.Append copies
// them.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// Read implements driver.Session: HGETALL for every field, HMGET for some.
// A record with none of the requested fields reads as missing: HMGET
// cannot tell a missing hash from one without those fields, and YCSB
// records always hold every field.
func (s *session) Read(_ context.Context, table, key string, fields []string, dst record.Record) (record.Record, error) {
	ctx := context.Background() // never cancelled: see DB.Session
	dst = dst[:0]
	var cmd rueidis.Completed
	if fields == nil {
		cmd = s.c.B().Hgetall().Key(key).Build()
	} else {
		cmd = s.c.B().Hmget().Key(key).Field(fields...).Build()
	}
	reply, err := s.c.Do(ctx, cmd).ToArray()
	if err != nil {
		return dst, classify(err)
	}
	if fields == nil {
		dst = appendPairs(dst, reply)
	} else {
		dst = appendFields(dst, fields, reply)
	}
	if len(dst) == 0 {
		return dst, driver.ErrNotFound
	}
	return dst, nil
}

// appendPairs appends an HGETALL reply, over RESP2 a flat array of names
// and values, to dst.
func appendPairs(dst record.Record, reply []rueidis.RedisMessage) record.Record {
	for i := 0; i+1 < len(reply); i += 2 {
		name, _ := reply[i].ToString()
		value, _ := reply[i+1].ToString()
		dst = appendField(dst, name, value)
	}
	return dst
}

// appendField appends one field to dst. The name is kept only when the
// slot it overwrites holds another one, so that rereading the same fields
// does not retain the reply's strings; the value is copied.
func appendField(dst record.Record, name, value string) record.Record {
	if n := len(dst); n < cap(dst) && dst[:n+1][n].Name == name {
		name = dst[:n+1][n].Name
	}
	return dst.Append(name, bytesOf(value))
}

// appendFields appends the present values of an HMGET reply to dst.
func appendFields(dst record.Record, fields []string, reply []rueidis.RedisMessage) record.Record {
	for i := range reply {
		if v, err := reply[i].ToString(); err == nil && i < len(fields) {
			dst = dst.Append(fields[i], bytesOf(v))
		}
	}
	return dst
}

// Scan implements driver.Session as YCSB's binding does: the keys whose
// index score (hash) is at least the start key's, at most count of them,
// then one pipelined read per key. Records deleted between the two steps
// are skipped.
func (s *session) Scan(_ context.Context, table, startKey string, count int, fields []string, dst []record.Record) ([]record.Record, error) {
	ctx := context.Background() // never cancelled: see DB.Session
	dst = dst[:0]
	keys, err := s.c.Do(ctx, s.c.B().Zrangebyscore().Key(indexKey).Min(scoreArg(startKey)).Max("+inf").
		Limit(0, int64(count)).Build()).AsStrSlice()
	if err != nil {
		return dst, classify(err)
	}
	if len(keys) == 0 {
		return dst, nil
	}
	cmds := s.cmds[:0]
	for _, k := range keys {
		if fields == nil {
			cmds = append(cmds, s.c.B().Hgetall().Key(k).Build())
		} else {
			cmds = append(cmds, s.c.B().Hmget().Key(k).Field(fields...).Build())
		}
	}
	replies := s.c.DoMulti(ctx, cmds...)
	s.cmds = clearCmds(cmds)
	for i := range replies {
		reply, err := replies[i].ToArray()
		if err != nil {
			return dst, classify(err)
		}
		var r record.Record
		if n := len(dst); n < cap(dst) {
			r = dst[:n+1][n][:0]
		}
		if fields == nil {
			r = appendPairs(r, reply)
		} else {
			r = appendFields(r, fields, reply)
		}
		if len(r) > 0 {
			dst = append(dst, r)
		}
	}
	return dst, nil
}

// clearCmds drops the commands rueidis has taken back, keeping the
// buffer.
func clearCmds(cmds []rueidis.Completed) []rueidis.Completed {
	clear(cmds)
	return cmds[:0]
}

// hset builds HSET key field value ... from a record.
func (s *session) hset(key string, values record.Record) rueidis.Completed {
	c := s.c.B().Hset().Key(key).FieldValue()
	for _, f := range values {
		c = c.FieldValue(f.Name, str(f.Value))
	}
	return c.Build()
}

// Update implements driver.Session. With redis.update=checked (default) a
// Lua script writes the fields only when the record exists.
func (s *session) Update(_ context.Context, table, key string, values record.Record) error {
	ctx := context.Background() // never cancelled: see DB.Session
	if s.db.cfg.Update == UpdateHSet {
		return classify(s.c.Do(ctx, s.hset(key, values)).Error())
	}
	args := s.strs[:0]
	for _, f := range values {
		args = append(args, f.Name, str(f.Value))
	}
	s.keys[0] = key
	n, err := s.db.update.Exec(ctx, s.c, s.keys[:], args).AsInt64()
	s.keys[0] = ""
	clear(args)
	s.strs = args[:0]
	if err != nil {
		return classify(err)
	}
	if n == 0 {
		return driver.ErrNotFound
	}
	return nil
}

// Insert implements driver.Session: HSET of the fields and ZADD to the
// index in one round trip, inside MULTI/EXEC on a single node. An
// existing record is overwritten field by field, as in YCSB.
func (s *session) Insert(_ context.Context, table, key string, values record.Record) error {
	_, err := s.pair(key, s.hset(key, values),
		s.c.B().Zadd().Key(indexKey).ScoreMember().ScoreMember(float64(score(key)), key).Build())
	return err
}

// Delete implements driver.Session: DEL of the record and ZREM from the
// index in one round trip. A missing record is NOT_FOUND.
func (s *session) Delete(_ context.Context, table, key string) error {
	deleted, err := s.pair(key, s.c.B().Del().Key(key).Build(),
		s.c.B().Zrem().Key(indexKey).Member(key).Build())
	if err != nil {
		return err
	}
	if deleted == 0 {
		return driver.ErrNotFound
	}
	return nil
}

// pair sends a record's command and its index entry's in one round trip
// and returns the first one's integer reply. On a single node they are
// wrapped in MULTI/EXEC, so that the record and its index entry change
// together; on a cluster the two keys live in different slots, where
// MULTI across slots is refused (CROSSSLOT), so they are only pipelined.
func (s *session) pair(key string, record, index rueidis.Completed) (int64, error) {
	cmds := s.cmds[:0]
	if s.db.cfg.Cluster {
		cmds = append(cmds, record, index)
	} else {
		// rueidis picks the connection of a pipeline by its first
		// command's slot; MULTI has none, which would put every
		// transaction on the first connection.
		cmds = append(cmds, s.c.B().Multi().Build().SetSlot(key), record, index, s.c.B().Exec().Build())
	}
	replies := s.c.DoMulti(context.Background(), cmds...)
	s.cmds = clearCmds(cmds)
	if err := firstError(replies); err != nil {
		return 0, classify(err)
	}
	if s.db.cfg.Cluster {
		n, _ := replies[0].AsInt64()
		return n, nil
	}
	// EXEC's reply holds the queued commands' replies, errors included.
	results, err := replies[len(replies)-1].ToArray()
	if err != nil {
		return 0, classify(err)
	}
	for i := range results {
		if err := results[i].Error(); err != nil {
			return 0, classify(err)
		}
	}
	var n int64
	if len(results) > 0 {
		n, _ = results[0].AsInt64()
	}
	return n, nil
}

// InsertBatch implements driver.BatchInserter with one pipeline: an HSET
// per record and one ZADD of all their index entries. It is not atomic: a
// failure may leave part of the batch written, which a retried batch
// overwrites.
func (s *session) InsertBatch(_ context.Context, table string, keys []string, values []record.Record) error {
	if len(keys) == 0 {
		return nil
	}
	cmds := make([]rueidis.Completed, 0, len(keys)+1)
	zadd := s.c.B().Zadd().Key(indexKey).ScoreMember()
	for i, k := range keys {
		cmds = append(cmds, s.hset(k, values[i]))
		zadd = zadd.ScoreMember(float64(score(k)), k)
	}
	cmds = append(cmds, zadd.Build())
	return classify(firstError(s.c.DoMulti(context.Background(), cmds...)))
}

// firstError returns the first error among a pipeline's replies.
func firstError(replies []rueidis.RedisResult) error {
	for i := range replies {
		if err := replies[i].Error(); err != nil {
			return err
		}
	}
	return nil
}

// Close implements driver.Session; the connections belong to the DB.
func (s *session) Close() error { return nil }

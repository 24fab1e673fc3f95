package redis

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/redis/rueidis"

	"github.com/dbarena/dbarena/driver"
)

// dropChunk is how many index entries DropSchema deletes per round trip.
const dropChunk = 1000

// CreateSchema implements driver.SchemaManager. Redis needs no schema: it
// checks that the server answers and records the table name in the
// _dbarena_tables set, so that a later CheckSchema can tell a loaded table
// from a misspelt one.
func (db *DB) CreateSchema(ctx context.Context, s driver.Schema) error {
	c := db.client
	if err := c.Do(ctx, c.B().Sadd().Key(tablesKey).Member(s.Table).Build()).Error(); err != nil {
		return fmt.Errorf("create table %s in redis at %s: %w", s.Table, db.addr, classify(err))
	}
	return nil
}

// DropSchema implements driver.SchemaManager. Redis has no tables and YCSB
// ignores the table name, so dropping any table deletes every record a
// YCSB or dbarena load wrote: with redis.drop=index (default) each key
// listed in the _indices sorted set, then the set itself, leaving keys no
// load wrote alone; with redis.drop=flushdb the whole logical database on
// every master.
func (db *DB) DropSchema(ctx context.Context, s driver.Schema) error {
	var err error
	if db.cfg.Drop == DropFlushDB {
		err = db.flushDB(ctx)
	} else {
		var n int
		n, err = db.dropIndexed(ctx)
		if n > 0 {
			db.log.Info("dropped indexed records", "records", n, "addr", db.addr)
		}
	}
	if err == nil {
		err = db.client.Do(ctx, db.client.B().Del().Key(tablesKey).Build()).Error()
	}
	if err != nil {
		return fmt.Errorf("drop table %s (redis.drop=%s) in redis at %s: %w", s.Table, db.cfg.Drop, db.addr, classify(err))
	}
	return nil
}

func (db *DB) flushDB(ctx context.Context) error {
	for addr, c := range db.client.Nodes() {
		if db.cfg.Cluster {
			// A replica refuses FLUSHDB; its master's is replicated.
			info, err := c.Do(ctx, c.B().Info().Section("replication").Build()).ToString()
			if err != nil {
				return fmt.Errorf("INFO replication on %s: %w", addr, err)
			}
			if !isMaster(info) {
				continue
			}
		}
		if err := c.Do(ctx, c.B().Flushdb().Build()).Error(); err != nil {
			return fmt.Errorf("FLUSHDB on %s: %w", addr, err)
		}
	}
	return nil
}

// dropIndexed deletes the records listed in the index a chunk at a time,
// one DEL per key so that keys in different cluster slots never share a
// command, and returns how many it deleted.
func (db *DB) dropIndexed(ctx context.Context) (int, error) {
	c := db.client
	n := 0
	for {
		keys, err := c.Do(ctx, c.B().Zrange().Key(indexKey).Min("0").Max(fmt.Sprint(dropChunk-1)).Build()).AsStrSlice()
		if err != nil {
			return n, err
		}
		if len(keys) == 0 {
			return n, c.Do(ctx, c.B().Del().Key(indexKey).Build()).Error()
		}
		cmds := make([]rueidis.Completed, 0, len(keys)+1)
		for _, k := range keys {
			cmds = append(cmds, c.B().Del().Key(k).Build())
		}
		cmds = append(cmds, c.B().Zrem().Key(indexKey).Member(keys...).Build())
		if err := firstError(c.DoMulti(ctx, cmds...)); err != nil {
			return n, err
		}
		n += len(keys)
	}
}

// CheckSchema implements driver.SchemaManager. The table passes when a
// dbarena load created it, or when no dbarena load created any table but
// the index holds records (a YCSB load, which keeps no table names). When
// the index holds records, the first one must have every field.
func (db *DB) CheckSchema(ctx context.Context, s driver.Schema) error {
	c := db.client
	replies := c.DoMulti(ctx, c.B().Smembers().Key(tablesKey).Build(), c.B().Zrange().Key(indexKey).Min("0").Max("0").Build())
	known, err := replies[0].AsStrSlice()
	var first []string
	if err == nil {
		first, err = replies[1].AsStrSlice()
	}
	if err != nil {
		return fmt.Errorf("check table %s in redis at %s: %w", s.Table, db.addr, classify(err))
	}
	if !slices.Contains(known, s.Table) && (len(known) > 0 || len(first) == 0) {
		why := "no records are indexed in " + indexKey
		if len(known) > 0 {
			slices.Sort(known)
			why = "tables loaded by dbarena: " + strings.Join(known, ", ")
		}
		return fmt.Errorf("table %s was not loaded into redis at %s (%s): run `dbarena ycsb load` first or set the table property",
			s.Table, db.addr, why)
	}
	if len(first) == 0 {
		return nil
	}
	key := first[0]
	have, err := c.Do(ctx, c.B().Hkeys().Key(key).Build()).AsStrSlice()
	if err != nil {
		return fmt.Errorf("check table %s in redis at %s: read record %s: %w", s.Table, db.addr, key, classify(err))
	}
	var missing []string
	for _, f := range s.Fields {
		if !slices.Contains(have, f) {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("table %s in redis at %s: record %s lacks field(s) %s (it has %s): match fieldcount/fieldnameprefix to the load, or drop (--drop) and load again",
			s.Table, db.addr, key, strings.Join(missing, ", "), strings.Join(have, ", "))
	}
	return nil
}

package redis

import (
	"context"
	"fmt"
	"slices"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbarena/dbarena/driver"
)

// dropChunk is how many index entries DropSchema deletes per round trip.
const dropChunk = 1000

// CreateSchema implements driver.SchemaManager. Redis needs no schema: it
// checks that the server answers and records the table name in the
// _dbarena_tables set, so that a later CheckSchema can tell a loaded table
// from a misspelt one.
func (db *DB) CreateSchema(ctx context.Context, s driver.Schema) error {
	if err := db.client.SAdd(ctx, tablesKey, s.Table).Err(); err != nil {
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
		err = db.client.Del(ctx, tablesKey).Err()
	}
	if err != nil {
		return fmt.Errorf("drop table %s (redis.drop=%s) in redis at %s: %w", s.Table, db.cfg.Drop, db.addr, classify(err))
	}
	return nil
}

func (db *DB) flushDB(ctx context.Context) error {
	if cc, ok := db.client.(*goredis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, c *goredis.Client) error {
			return c.FlushDB(ctx).Err()
		})
	}
	return db.client.FlushDB(ctx).Err()
}

// dropIndexed deletes the records listed in the index a chunk at a time,
// one DEL per key so that keys in different cluster slots never share a
// command, and returns how many it deleted.
func (db *DB) dropIndexed(ctx context.Context) (int, error) {
	n := 0
	for {
		keys, err := db.client.ZRange(ctx, indexKey, 0, dropChunk-1).Result()
		if err != nil {
			return n, err
		}
		if len(keys) == 0 {
			return n, db.client.Del(ctx, indexKey).Err()
		}
		pipe := db.client.Pipeline()
		members := make([]any, len(keys))
		for i, k := range keys {
			pipe.Del(ctx, k)
			members[i] = k
		}
		pipe.ZRem(ctx, indexKey, members...)
		if _, err := pipe.Exec(ctx); err != nil {
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
	pipe := db.client.Pipeline()
	tables := pipe.SMembers(ctx, tablesKey)
	first := pipe.ZRange(ctx, indexKey, 0, 0)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("check table %s in redis at %s: %w", s.Table, db.addr, classify(err))
	}
	known := tables.Val()
	if !slices.Contains(known, s.Table) && (len(known) > 0 || len(first.Val()) == 0) {
		why := "no records are indexed in " + indexKey
		if len(known) > 0 {
			slices.Sort(known)
			why = "tables loaded by dbarena: " + strings.Join(known, ", ")
		}
		return fmt.Errorf("table %s was not loaded into redis at %s (%s): run `dbarena ycsb load` first or set the table property",
			s.Table, db.addr, why)
	}
	if len(first.Val()) == 0 {
		return nil
	}
	key := first.Val()[0]
	have, err := db.client.HKeys(ctx, key).Result()
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

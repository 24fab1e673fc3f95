package redis

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// indexKey is the sorted set that lists every record for scans. The name,
// like the score below, is YCSB's (RedisClient.INDEX_KEY), so that a scan
// finds the records either tool loaded.
const indexKey = "_indices"

// tablesKey is the set of table names dbarena loads have created. Redis has
// no tables and YCSB ignores the table name; this set only lets CheckSchema
// tell a table that was loaded from a misspelt one.
const tablesKey = "_dbarena_tables"

// score is a record's score in the index: Java's String.hashCode of the
// key, as YCSB's binding computes it. The hash scatters keys, so a scan
// from a start key returns the records whose hashes follow the start key's,
// not the keys that follow it in order.
func score(key string) int32 {
	var h int32
	for i := 0; i < len(key); {
		c := key[i]
		if c < utf8.RuneSelf {
			// ASCII, as YCSB keys are: one UTF-16 unit per byte.
			h = 31*h + int32(c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(key[i:])
		i += n
		// Java hashes UTF-16 code units: a rune outside the BMP is a
		// surrogate pair.
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			h = 31*h + int32(r1)
			h = 31*h + int32(r2)
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// scoreArg formats a score as ZRANGEBYSCORE's min argument.
func scoreArg(key string) string {
	return strconv.FormatInt(int64(score(key)), 10)
}

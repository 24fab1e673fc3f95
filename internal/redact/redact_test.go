package redact_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/redact"
)

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://bench:s3cret@db:5432/ycsb?sslmode=disable": "postgres://bench:REDACTED@db:5432/ycsb?sslmode=disable",
		"root:pw@tcp(127.0.0.1:3306)/ycsb":                     "root:REDACTED@tcp(127.0.0.1:3306)/ycsb",
		"postgres://bench@db/ycsb":                             "postgres://bench@db/ycsb",
		"mongodb://u:p:q@h1,h2/db":                             "mongodb://u:REDACTED@h1,h2/db",
		"127.0.0.1:6379":                                       "127.0.0.1:6379",
		"mongodb://h:1/db?x=a@b":                               "mongodb://h:1/db?x=a@b", // an @ in the query is data
		"u:p@w@tcp(h:1)/db":                                    "u:REDACTED@tcp(h:1)/db",
	} {
		require.Equal(t, want, redact.URL(in), in)
	}
}

func TestProps(t *testing.T) {
	in := map[string]string{
		"redis.password": "hunter2", "db.passwd": "x", "dynamodb.secret_key": "k", "dynamodb.access_key": "AKIA",
		"mongodb.url": "mongodb://u:p@h/db", "aerospike.hosts": "h1:3000", "cql.hosts": "a,b",
		"postgres.dsn": "postgres://u:p@h/db",
	}
	out := redact.Props(in)
	require.Equal(t, map[string]string{
		"redis.password": "REDACTED", "db.passwd": "REDACTED", "dynamodb.secret_key": "REDACTED", "dynamodb.access_key": "REDACTED",
		"mongodb.url": "mongodb://u:REDACTED@h/db", "aerospike.hosts": "h1:3000", "cql.hosts": "a,b",
		"postgres.dsn": "postgres://u:REDACTED@h/db",
	}, out)
	require.Equal(t, "hunter2", in["redis.password"], "the input is not changed")
}

package mongodb

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/dbarena/dbarena/internal/redact"
)

func TestParseConfigDefaults(t *testing.T) {
	c, err := ParseConfig(map[string]string{}, 16)
	require.NoError(t, err)
	require.Equal(t, DefaultURL, c.URL)
	require.Equal(t, "ycsb", c.Database)
	require.Equal(t, []string{"localhost:27017"}, c.Hosts)
	require.Equal(t, 1, c.WriteConcern.W, "YCSB's default URL asks for w=1")
	require.Nil(t, c.WriteConcern.Journal, "journal left to the server")
	require.Nil(t, c.ReadConcern, "no readConcern sent: the server's default (local)")
	require.Equal(t, readpref.PrimaryMode, c.ReadPreference.Mode())
	require.Equal(t, 16, c.Pool, "a connection per worker")
	require.Equal(t, 5*time.Second, c.ConnectTimeout)
	require.Zero(t, c.Timeout)
	require.False(t, c.Upsert)
}

func TestDatabaseFromURL(t *testing.T) {
	for name, tc := range map[string]struct {
		url, prop, want string
	}{
		"path":            {url: "mongodb://h:27017/bench", want: "bench"},
		"path with query": {url: "mongodb://h1:27017,h2:27017/bench?replicaSet=rs0", want: "bench"},
		"no path":         {url: "mongodb://h:27017", want: "ycsb"},
		"empty path":      {url: "mongodb://h:27017/?w=1", want: "ycsb"},
		"admin is auth":   {url: "mongodb://u:p@h:27017/admin", want: "ycsb"},
		"property wins":   {url: "mongodb://h:27017/bench", prop: "other", want: "other"},
	} {
		t.Run(name, func(t *testing.T) {
			props := map[string]string{"mongodb.url": tc.url}
			if tc.prop != "" {
				props["mongodb.database"] = tc.prop
			}
			c, err := ParseConfig(props, 1)
			require.NoError(t, err)
			require.Equal(t, tc.want, c.Database)
		})
	}
}

func TestWriteConcern(t *testing.T) {
	yes := true
	for name, tc := range map[string]struct {
		url     string
		props   map[string]string
		w       any
		journal *bool
	}{
		"default without w in URL":   {url: "mongodb://h/db", w: 1},
		"URL w=majority":             {url: "mongodb://h/db?w=majority", w: "majority"},
		"URL journal":                {url: "mongodb://h/db?journal=true", w: 1, journal: &yes},
		"property over URL":          {url: "mongodb://h/db?w=majority", props: map[string]string{"mongodb.writeconcern": "0"}, w: 0},
		"number of members":          {url: "mongodb://h/db", props: map[string]string{"mongodb.writeconcern": "3"}, w: 3},
		"majority any case":          {url: "mongodb://h/db", props: map[string]string{"mongodb.writeconcern": "Majority"}, w: "majority"},
		"journal property":           {url: "mongodb://h/db", props: map[string]string{"mongodb.journal": "true"}, w: 1, journal: &yes},
		"YCSB unacknowledged":        {url: "mongodb://h/db", props: map[string]string{"mongodb.writeConcern": "unacknowledged"}, w: 0},
		"YCSB errors_ignored":        {url: "mongodb://h/db", props: map[string]string{"mongodb.writeConcern": "errors_ignored"}, w: 0},
		"YCSB acknowledged":          {url: "mongodb://h/db", props: map[string]string{"mongodb.writeConcern": "acknowledged"}, w: 1},
		"YCSB journaled":             {url: "mongodb://h/db", props: map[string]string{"mongodb.writeConcern": "journaled"}, w: 1, journal: &yes},
		"YCSB replica_acknowledged":  {url: "mongodb://h/db", props: map[string]string{"mongodb.writeConcern": "replica_acknowledged"}, w: 2},
		"YCSB majority over URL w=1": {url: "mongodb://h/db?w=1", props: map[string]string{"mongodb.writeConcern": "majority"}, w: "majority"},
	} {
		t.Run(name, func(t *testing.T) {
			props := map[string]string{"mongodb.url": tc.url}
			for k, v := range tc.props {
				props[k] = v
			}
			c, err := ParseConfig(props, 1)
			require.NoError(t, err)
			require.Equal(t, tc.w, c.WriteConcern.W)
			require.Equal(t, tc.journal, c.WriteConcern.Journal)
		})
	}
}

func TestWriteConcernErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		props map[string]string
		want  string
	}{
		"unknown":              {map[string]string{"mongodb.writeconcern": "all"}, "mongodb.writeconcern"},
		"negative":             {map[string]string{"mongodb.writeconcern": "-1"}, "mongodb.writeconcern"},
		"w0 journaled":         {map[string]string{"mongodb.writeconcern": "0", "mongodb.journal": "true"}, "mongodb.journal"},
		"both names differ":    {map[string]string{"mongodb.writeconcern": "1", "mongodb.writeConcern": "majority"}, "mongodb.writeConcern"},
		"journal not a bool":   {map[string]string{"mongodb.journal": "sometimes"}, "mongodb.journal"},
		"YCSB name, bad value": {map[string]string{"mongodb.writeConcern": "most"}, "mongodb.writeConcern"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseConfig(tc.props, 1)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestReadConcern(t *testing.T) {
	for _, level := range []string{"local", "majority", "linearizable", "snapshot", "available"} {
		c, err := ParseConfig(map[string]string{"mongodb.readconcern": level}, 1)
		require.NoError(t, err, level)
		require.Equal(t, level, c.ReadConcern.Level)
	}
	c, err := ParseConfig(map[string]string{"mongodb.url": "mongodb://h/db?readConcernLevel=majority"}, 1)
	require.NoError(t, err)
	require.Equal(t, "majority", c.ReadConcern.Level, "from the URL")
	c, err = ParseConfig(map[string]string{"mongodb.url": "mongodb://h/db?readConcernLevel=majority", "mongodb.readconcern": "LOCAL"}, 1)
	require.NoError(t, err)
	require.Equal(t, "local", c.ReadConcern.Level, "the property wins")
	_, err = ParseConfig(map[string]string{"mongodb.readconcern": "linearizable", "mongodb.readpreference": "secondary"}, 1)
	require.ErrorContains(t, err, "primary", "linearizable reads need the primary")
}

func TestReadPreference(t *testing.T) {
	for in, want := range map[string]readpref.Mode{
		"primary": readpref.PrimaryMode, "primaryPreferred": readpref.PrimaryPreferredMode,
		"secondary": readpref.SecondaryMode, "secondaryPreferred": readpref.SecondaryPreferredMode,
		"nearest": readpref.NearestMode, "primary_preferred": readpref.PrimaryPreferredMode,
		"secondary_preferred": readpref.SecondaryPreferredMode, "NEAREST": readpref.NearestMode,
	} {
		c, err := ParseConfig(map[string]string{"mongodb.readpreference": in}, 1)
		require.NoError(t, err, in)
		require.Equal(t, want, c.ReadPreference.Mode(), in)
	}
	c, err := ParseConfig(map[string]string{"mongodb.readPreference": "secondary_preferred"}, 1)
	require.NoError(t, err)
	require.Equal(t, readpref.SecondaryPreferredMode, c.ReadPreference.Mode(), "YCSB's property name")
	c, err = ParseConfig(map[string]string{"mongodb.url": "mongodb://h/db?readPreference=nearest"}, 1)
	require.NoError(t, err)
	require.Equal(t, readpref.NearestMode, c.ReadPreference.Mode(), "from the URL")
}

func TestPoolSize(t *testing.T) {
	c, err := ParseConfig(map[string]string{"mongodb.url": "mongodb://h/db?maxPoolSize=7"}, 32)
	require.NoError(t, err)
	require.Equal(t, 7, c.Pool, "the URL's maxPoolSize over the worker count")
	c, err = ParseConfig(map[string]string{"mongodb.url": "mongodb://h/db?maxPoolSize=7", "mongodb.maxconnections": "9"}, 32)
	require.NoError(t, err)
	require.Equal(t, 9, c.Pool, "YCSB's mongodb.maxconnections")
}

func TestIgnoredYCSBProperties(t *testing.T) {
	c, err := ParseConfig(map[string]string{"mongodb.batchsize": "100", "mongodb.threadsAllowedToBlockForConnectionMultiplier": "5"}, 1)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"mongodb.batchsize", "mongodb.threadsAllowedToBlockForConnectionMultiplier"}, c.Ignored)
}

func TestRedact(t *testing.T) {
	require.Equal(t, "mongodb://u:REDACTED@h:1/db", redact.URL("mongodb://u:secret@h:1/db"))
	require.Equal(t, "mongodb://u@h:1/db", redact.URL("mongodb://u@h:1/db"))
	require.Equal(t, "mongodb://h:1/db?x=a@b", redact.URL("mongodb://h:1/db?x=a@b"))
}

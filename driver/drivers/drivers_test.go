package drivers

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
)

// TestOpenErrorsHideCredentials opens through the decorator every
// registered driver goes through, with a client that echoes what it was
// given, as pgx, go-sql-driver and servers do.
func TestOpenErrorsHideCredentials(t *testing.T) {
	cause := errors.New("connection refused")
	echo := func(_ context.Context, p driver.Params) (driver.DB, error) {
		return nil, fmt.Errorf("connect to %s as %s/%s: %w", p.Props["x.url"], p.Props["x.user"], p.Props["x.password"], cause)
	}
	for name, c := range map[string]struct {
		props map[string]string
		want  string
	}{
		"key=value":      {map[string]string{"x.url": "host=h password='pw one'"}, "connect to host=h password='REDACTED' as /: connection refused"},
		"URL":            {map[string]string{"x.url": "redis://:hunter22@h:6379"}, "connect to redis://:REDACTED@h:6379 as /: connection refused"},
		"secret-named":   {map[string]string{"x.user": "bench", "x.password": "hunter22"}, "connect to  as bench/REDACTED: connection refused"},
		"nothing secret": {map[string]string{"x.url": "h:6379"}, "connect to h:6379 as /: connection refused"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := redacted(echo)(context.Background(), driver.Params{Props: c.props})
			require.EqualError(t, err, c.want)
			require.ErrorIs(t, err, cause, "the cause is kept for the callers' errors.As")
		})
	}
}

// TestLookupSuggests checks that an unknown driver lists the valid ones
// and names the nearest when it is a plausible typo.
func TestLookupSuggests(t *testing.T) {
	_, err := Lookup("postgress")
	require.ErrorContains(t, err, `unknown driver "postgress": valid drivers are aerospike, basic, `)
	require.ErrorContains(t, err, `; did you mean "postgres"?`)
	_, err = Lookup("oracle")
	require.NotContains(t, err.Error(), "did you mean")
}

// TestCheckAgreesWithOpen gives every driver one property of the wrong
// kind: Check refuses it without connecting, as a driver.ConfigError
// naming the property, and Open refuses it the same way (the experiment
// checks before deploying what the trial would find after); the
// defaults pass Check.
func TestCheckAgreesWithOpen(t *testing.T) {
	bad := map[string]map[string]string{
		"aerospike": {"aerospike.port": "99999"},
		"basic":     {"basic.delay": "-1s"},
		"cql":       {"cql.keyspace": "1bad"},
		"dynamodb":  {"dynamodb.connect.timeout": "0"},
		"memory":    {"memory.maxbytes": "lots"},
		"mongodb":   {"mongodb.pool": "0"},
		"mysql":     {"mysql.pool": "0"},
		"postgres":  {"postgres.pool.max": "0"},
		"redis":     {"redis.pool": "lots"},
	}
	for _, d := range All() {
		t.Run(d.Name, func(t *testing.T) {
			require.NotNil(t, d.Check, "every driver checks its properties")
			require.NoError(t, d.Check(map[string]string{}, 4), "the defaults")
			props, ok := bad[d.Name]
			require.True(t, ok, "a bad property for %s in this test", d.Name)
			var key string
			for k := range props {
				key = k
			}
			var ce *driver.ConfigError
			err := d.Check(props, 4)
			require.ErrorAs(t, err, &ce)
			require.Contains(t, err.Error(), key)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, err = d.Open(ctx, driver.Params{Props: props, Workers: 4})
			require.ErrorAs(t, err, &ce, "Open refuses it as bad input too")
			require.Contains(t, err.Error(), key)
		})
	}
}

// TestUnknownPropertyNamesTheNearest: a misspelt property under a
// driver's prefix is refused as bad input by Check and Open, naming the
// nearest property the driver reads; each property a deployment makes
// for the driver (its Addresser), and each YCSB spelling it accepts, is
// known; a property of another driver's prefix is not this one's
// business.
func TestUnknownPropertyNamesTheNearest(t *testing.T) {
	typos := map[string][2]string{
		"basic":     {"basic.dealy", "basic.delay"},
		"aerospike": {"aerospike.namspace", "aerospike.namespace"},
		"cql":       {"cql.host", "cql.hosts"},
		"dynamodb":  {"dynamodb.endpiont", "dynamodb.endpoint"},
		"memory":    {"memory.maxbyte", "memory.maxbytes"},
		"mongodb":   {"mongodb.uri", "mongodb.url"},
		"mysql":     {"mysql.uri", "mysql.url"},
		"postgres":  {"postgres.uri", "postgres.url"},
		"redis":     {"redis.hots", "redis.host"},
	}
	reach := driver.Reach{Addrs: []string{"10.0.0.1:4000", "10.0.0.2:4000", "10.0.0.3:4000"}, Nodes: 3, User: "u", Password: "pw", Database: "db", SamePort: true, Private: true}
	for _, d := range All() {
		t.Run(d.Name, func(t *testing.T) {
			typo, ok := typos[d.Name]
			require.True(t, ok, "a misspelt property for %s in this test", d.Name)
			props := map[string]string{typo[0]: "x", "other.url": "y"}
			var ce *driver.ConfigError
			err := d.Check(props, 4)
			require.ErrorAs(t, err, &ce)
			require.ErrorContains(t, err, typo[0]+": the "+d.Prefix+" driver has no such property; did you mean "+typo[1]+"?")
			require.NotContains(t, err.Error(), "other.url")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, err = d.Open(ctx, driver.Params{Props: props, Workers: 4})
			require.ErrorAs(t, err, &ce, "Open refuses it as bad input too")
			require.ErrorContains(t, err, typo[0])

			if d.Address == nil {
				return
			}
			made := map[string]string{}
			for _, p := range d.Address(reach) {
				made[p.Key] = p.Value
			}
			if err := d.Check(made, 4); err != nil {
				require.NotContains(t, err.Error(), "no such property", "what a deployment makes is known: %v", made)
			}
		})
	}
	// YCSB's spellings, read as the driver's own.
	for name, props := range map[string]map[string]string{
		"dynamodb": {"dynamodb.primaryKey": "k", "dynamodb.consistentReads": "true", "dynamodb.endpoint": "http://127.0.0.1:8000"},
		"mongodb":  {"mongodb.writeConcern": "majority", "mongodb.maxconnections": "4"},
	} {
		d, err := Lookup(name)
		require.NoError(t, err)
		if err := d.Check(props, 4); err != nil {
			require.NotContains(t, err.Error(), "no such property", name)
		}
	}
}

package aerospike

import (
	"testing"
	"time"

	as "github.com/aerospike/aerospike-client-go/v8"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
)

func TestParseConfigDefaults(t *testing.T) {
	c, err := ParseConfig(map[string]string{}, 16)
	require.NoError(t, err)
	require.Equal(t, []string{"localhost:3000"}, c.Hosts)
	require.Equal(t, "ycsb", c.Namespace)
	require.Empty(t, c.Set, "the table name by default")
	require.Equal(t, "usertable", c.setName("usertable"))
	require.Equal(t, 10*time.Second, c.Timeout, "YCSB's as.timeout default")
	require.Equal(t, 5*time.Second, c.ConnectTimeout)
	require.Equal(t, 16, c.Pool, "a connection per worker and node")
	require.Equal(t, as.SEQUENCE, c.Replica)
	require.Equal(t, as.ReadModeAPOne, c.ReadModeAP)
	require.Equal(t, as.ReadModeSCSession, c.ReadModeSC)
	require.Equal(t, as.COMMIT_ALL, c.CommitLevel)
	require.True(t, c.SendKey)
	require.False(t, c.DurableDelete)
}

func TestYCSBProperties(t *testing.T) {
	c, err := ParseConfig(map[string]string{
		"as.host": "db1", "as.port": "3100", "as.namespace": "bench", "as.user": "u", "as.password": "p", "as.timeout": "2500",
	}, 1)
	require.NoError(t, err)
	require.Equal(t, []string{"db1:3100"}, c.Hosts)
	require.Equal(t, "bench", c.Namespace)
	require.Equal(t, "u", c.User)
	require.Equal(t, "p", c.Password)
	require.Equal(t, 2500*time.Millisecond, c.Timeout, "a bare number is milliseconds, as in YCSB")

	_, err = ParseConfig(map[string]string{"as.namespace": "a", "aerospike.namespace": "b"}, 1)
	require.ErrorContains(t, err, "as.namespace")
	_, err = ParseConfig(map[string]string{"as.password": "s3cret-one", "aerospike.password": "s3cret-two"}, 1)
	require.EqualError(t, err, `as.password="REDACTED" and aerospike.password="REDACTED": both set the same thing; keep one`)
	c, err = ParseConfig(map[string]string{"as.namespace": "a", "aerospike.namespace": "a"}, 1)
	require.NoError(t, err, "the same value under both names is fine")
	require.Equal(t, "a", c.Namespace)
}

func TestHosts(t *testing.T) {
	for in, want := range map[string][]string{
		"db1":                   {"db1:3000"},
		"db1:3100":              {"db1:3100"},
		"db1, db2:3100 ,db3":    {"db1:3000", "db2:3100", "db3:3000"},
		"10.0.0.1":              {"10.0.0.1:3000"},
		"[::1]:3100":            {"[::1]:3100"},
		"::1":                   {"[::1]:3000"},
		"aerospike.example.com": {"aerospike.example.com:3000"},
	} {
		c, err := ParseConfig(map[string]string{"aerospike.host": in}, 1)
		require.NoError(t, err, in)
		require.Equal(t, want, c.Hosts, in)
	}
}

func TestBadProperties(t *testing.T) {
	for prop, val := range map[string]string{
		"aerospike.host":            " , ",
		"aerospike.port":            "70000",
		"aerospike.namespace":       "a_namespace_name_longer_than_31_bytes",
		"aerospike.set":             "a_set_name_that_is_far_longer_than_the_sixty_three_bytes_aerospike_allows",
		"aerospike.timeout":         "later",
		"aerospike.connect.timeout": "0",
		"aerospike.pool":            "0",
		"aerospike.replica":         "nearest",
		"aerospike.readmodeap":      "quorum",
		"aerospike.readmodesc":      "strict",
		"aerospike.readmodecp":      "strict",
		"aerospike.commitlevel":     "some",
		"aerospike.sendkey":         "perhaps",
		"aerospike.durabledelete":   "perhaps",
		"aerospike.user":            "alice",
	} {
		_, err := ParseConfig(map[string]string{prop: val}, 4)
		require.Error(t, err, prop)
		require.Contains(t, err.Error(), prop)
	}
	_, err := ParseConfig(map[string]string{"aerospike.host": "db1:notaport"}, 1)
	require.ErrorContains(t, err, "aerospike.host")
}

func TestPolicyChoices(t *testing.T) {
	for name, tc := range map[string]struct {
		props map[string]string
		check func(*testing.T, Config)
	}{
		"replica master": {map[string]string{"aerospike.replica": "master"}, func(t *testing.T, c Config) { require.Equal(t, as.MASTER, c.Replica) }},
		"replica any":    {map[string]string{"aerospike.replica": "any"}, func(t *testing.T, c Config) { require.Equal(t, as.MASTER_PROLES, c.Replica) }},
		"replica random": {map[string]string{"aerospike.replica": "RANDOM"}, func(t *testing.T, c Config) { require.Equal(t, as.RANDOM, c.Replica) }},
		"read mode ap all": {map[string]string{"aerospike.readmodeap": "all"}, func(t *testing.T, c Config) {
			require.Equal(t, as.ReadModeAPAll, c.ReadModeAP)
		}},
		"linearize": {map[string]string{"aerospike.readmodesc": "linearize"}, func(t *testing.T, c Config) {
			require.Equal(t, as.ReadModeSCLinearize, c.ReadModeSC)
		}},
		"linearize by the cp name": {map[string]string{"aerospike.readmodecp": "linearize"}, func(t *testing.T, c Config) {
			require.Equal(t, as.ReadModeSCLinearize, c.ReadModeSC)
		}},
		"allow replica": {map[string]string{"aerospike.readmodesc": "allow_replica"}, func(t *testing.T, c Config) {
			require.Equal(t, as.ReadModeSCAllowReplica, c.ReadModeSC)
		}},
		"commit master": {map[string]string{"aerospike.commitlevel": "master"}, func(t *testing.T, c Config) {
			require.Equal(t, as.COMMIT_MASTER, c.CommitLevel)
		}},
		"no send key": {map[string]string{"aerospike.sendkey": "false"}, func(t *testing.T, c Config) { require.False(t, c.SendKey) }},
		"fixed set":   {map[string]string{"aerospike.set": "bench"}, func(t *testing.T, c Config) { require.Equal(t, "bench", c.setName("usertable")) }},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := ParseConfig(tc.props, 1)
			require.NoError(t, err)
			tc.check(t, c)
		})
	}
}

func TestPolicies(t *testing.T) {
	c, err := ParseConfig(map[string]string{
		"aerospike.timeout": "250ms", "aerospike.replica": "master", "aerospike.readmodesc": "linearize",
		"aerospike.commitlevel": "master", "aerospike.durabledelete": "true", "aerospike.connect.timeout": "3s",
	}, 1)
	require.NoError(t, err)
	p := c.policies()
	require.Equal(t, as.CREATE_ONLY, p.insert.RecordExistsAction, "an existing key fails the insert")
	require.Equal(t, as.UPDATE_ONLY, p.update.RecordExistsAction, "a missing key fails the update, other bins are kept")
	require.Equal(t, as.CREATE_ONLY, p.batchWrite.RecordExistsAction)
	for name, bp := range map[string]*as.BasePolicy{
		"read": p.read, "insert": &p.insert.BasePolicy, "update": &p.update.BasePolicy,
		"delete": &p.delete.BasePolicy, "batch": &p.batch.BasePolicy,
	} {
		require.Equal(t, 250*time.Millisecond, bp.TotalTimeout, name)
		require.LessOrEqual(t, bp.SocketTimeout, bp.TotalTimeout, name)
		require.Equal(t, as.MASTER, bp.ReplicaPolicy, name)
		require.Equal(t, as.ReadModeSCLinearize, bp.ReadModeSC, name)
		require.True(t, bp.SendKey, name)
	}
	for name, wp := range map[string]*as.WritePolicy{"insert": p.insert, "update": p.update, "delete": p.delete} {
		require.Equal(t, as.COMMIT_MASTER, wp.CommitLevel, name)
		require.True(t, wp.DurableDelete, name)
		require.Zero(t, wp.MaxRetries, "writes are not retried: %s", name)
	}
	require.Zero(t, p.batch.MaxRetries, "batched create-only writes are not retried")
	require.Equal(t, 2, p.read.MaxRetries, "reads keep the client's retries")
	require.Equal(t, as.COMMIT_MASTER, p.batchWrite.CommitLevel)
	require.True(t, p.batchWrite.SendKey)
	require.Equal(t, 3*time.Second, p.info.Timeout)

	cp := c.clientPolicy()
	require.Equal(t, 3*time.Second, cp.Timeout)
	require.Equal(t, 1, cp.ConnectionQueueSize)
	require.True(t, cp.FailIfNotConnected)
}

func TestBinNames(t *testing.T) {
	require.NoError(t, checkBinName("field0"))
	require.NoError(t, checkBinName("fifteen_chars_x"))
	err := checkBinName("sixteen_chars_xx")
	require.Equal(t, driver.ClassBadRequest, driver.Classify(err))
	require.ErrorContains(t, err, "sixteen_chars_xx")
	require.ErrorContains(t, checkFields([]string{"field0", "a_much_too_long_field_name"}), "a_much_too_long_field_name")
	require.Error(t, checkBinName(""))
}

func TestInfoParsing(t *testing.T) {
	require.True(t, hasNamespace("test;ycsb", "ycsb"))
	require.False(t, hasNamespace("test;ycsb2", "ycsb"))
	require.False(t, hasNamespace("", "ycsb"))
	answer := "set=usertable:objects=1000:tombstones=0:memory_data_bytes=0:truncate_lut=0:sindexes=0:index_populating=false;" +
		"set=other:objects=0:tombstones=0;"
	require.True(t, hasSet(answer, "usertable"))
	require.True(t, hasSet(answer, "other"), "a set with no records is still known")
	require.False(t, hasSet(answer, "user"))
	require.True(t, hasSet("ns_name=ycsb:set_name=usertable:n_objects=3", "usertable"), "older servers' field names")
	require.False(t, hasSet("", "usertable"))
}

package cli

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
)

// startRedisWithPassword runs a Redis of the test's own whose default
// user needs password and whose ACL user bench needs benchPW, and
// returns its address.
func startRedisWithPassword(t *testing.T, password, benchPW string) string {
	t.Helper()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(startRedis(t, "127.0.0.1")))
	c := goredis.NewClient(&goredis.Options{Addr: addr})
	defer c.Close()
	ctx := context.Background()
	require.NoError(t, c.Do(ctx, "ACL", "SETUSER", "bench", "on", ">"+benchPW, "~*", "&*", "+@all").Err())
	require.NoError(t, c.ConfigSet(ctx, "requirepass", password).Err())
	return addr
}

// TestSecretsRedis runs against a Redis that checks passwords: the
// right ones load and run, wrong ones are refused, and Redis's own
// WRONGPASS error travels through the driver's message.
func TestSecretsRedis(t *testing.T) {
	testenv.Addr(t, "DBARENA_TEST_REDIS") // redis-server is installed
	const (
		pw      = "Mk7rdMarker61"
		benchPW = "Mk7rdMarker62"
		wrong   = "Mk7rdMarker63"
		inFile  = "Mk7rdMarker64"
	)
	addr := startRedisWithPassword(t, pw, benchPW)
	host, port, _ := net.SplitHostPort(addr)
	key := keyFile(t, "not a key: "+inFile)
	requireNoLeak(t, "redis", nil, []string{pw, benchPW, wrong, inFile}, []secretCase{
		{name: "password", props: []string{"redis.addr=" + addr, "redis.password=" + pw}},
		{name: "password from env", props: []string{"redis.addr=" + addr, "redis.password=" + envRef("DBARENA_TEST_SECRET_RD")},
			env: map[string]string{"DBARENA_TEST_SECRET_RD": pw}},
		{name: "ACL user", props: []string{"redis.addr=" + addr, "redis.user=bench", "redis.password=" + benchPW}},
		{name: "YCSB host and port", props: []string{"redis.host=" + host, "redis.port=" + port, "redis.password=" + pw}},
		{name: "URL, empty user", props: []string{"redis.url=redis://:" + pw + "@" + addr}},
		{name: "URL from env", props: []string{"redis.url=redis://:" + envRef("DBARENA_TEST_SECRET_RD") + "@" + addr + "/0"},
			env: map[string]string{"DBARENA_TEST_SECRET_RD": pw}},
		{name: "URL with ACL user", props: []string{"redis.url=redis://bench:" + benchPW + "@" + addr}},
		{name: "wrong password", props: []string{"redis.addr=" + addr, "redis.password=" + wrong}, fail: "refused the login"},
		{name: "wrong password in URL", props: []string{"redis.url=redis://bench:" + wrong + "@" + addr}, fail: "refused the login"},
		{name: "URL given as address", props: []string{"redis.addr=redis://:" + pw + "@" + addr}, fail: "a URL goes in redis.url"},
		{name: "unparsable URL", props: []string{"redis.url=redis://:" + pw + "@" + host + ":notaport"}, fail: "redis.url="},
		{name: "key file", props: []string{"redis.addr=" + addr, "redis.password=" + pw, "redis.tls.cert=" + key, "redis.tls.key=" + key},
			fail: "redis.tls.key"},
	})
}

// TestSecretsMongoDB runs against FerretDB, which takes a PLAIN login
// whatever its password and refuses SCRAM: the first covers working runs,
// the second the driver's "refused the login" message, which quotes the
// URL.
func TestSecretsMongoDB(t *testing.T) {
	hostPort := strings.TrimSuffix(strings.TrimPrefix(testenv.Addr(t, "DBARENA_TEST_MONGODB"), "mongodb://"), "/")
	const (
		pw     = "Mk7mgMarker71"
		keyPW  = "Mk7mgMarker72"
		inFile = "Mk7mgMarker73"
	)
	url := func(pass, opts string) string {
		return fmt.Sprintf("mongodb.url=mongodb://bench:%s@%s/dbarena_secret?%s", pass, hostPort, opts)
	}
	key := keyFile(t, "not a key: "+inFile)
	requireNoLeak(t, "mongodb", []string{"table=secret_leak"}, []string{pw, keyPW, inFile}, []secretCase{
		{name: "URL", props: []string{url(pw, "authMechanism=PLAIN")}},
		{name: "URL from env", props: []string{url(envRef("DBARENA_TEST_SECRET_MG"), "authMechanism=PLAIN")},
			env: map[string]string{"DBARENA_TEST_SECRET_MG": pw}},
		{name: "whole URL from env", props: []string{"mongodb.url=" + envRef("DBARENA_TEST_SECRET_MGURL")},
			env: map[string]string{"DBARENA_TEST_SECRET_MGURL": strings.TrimPrefix(url(pw, "authMechanism=PLAIN"), "mongodb.url=")}},
		{name: "refused login", props: []string{url(pw, "authMechanism=SCRAM-SHA-256")}, fail: "refused the login"},
		{name: "key file", props: []string{url(pw, "tls=true&tlsCertificateKeyFile="+key+"&tlsCertificateKeyFilePassword="+keyPW)},
			fail: "mongodb.url="},
		{name: "unparsable URL", props: []string{fmt.Sprintf("mongodb.url=mongodb://bench:%s@127.0.0.1:notaport/db", pw)}, fail: "mongodb.url="},
	})
}

// TestSecretsDynamoDB gives DynamoDB Local static keys, which it takes
// when their characters are valid and refuses otherwise, as properties,
// as YCSB's names from the environment and in YCSB's credentials file,
// whose content no caller sees.
func TestSecretsDynamoDB(t *testing.T) {
	endpoint := testenv.Addr(t, "DBARENA_TEST_DYNAMODB")
	const (
		access = "AKIDMk7ddMarker81"
		secret = "Mk7ddMarker82"
		bad    = "bad-Mk7ddMarker83" // not a valid access key ID
		inFile = "Mk7ddMarker84"
	)
	creds := func(accessKey string) string {
		path := keyFile(t, "# YCSB's AWSCredentials.properties\naccessKey = "+accessKey+"\nsecretKey = "+inFile+"\n")
		return "dynamodb.awsCredentialsFile=" + path
	}
	requireNoLeak(t, "dynamodb", []string{"dynamodb.endpoint=" + endpoint, "table=secret_leak"}, []string{access, secret, bad, inFile}, []secretCase{
		{name: "keys", props: []string{"dynamodb.accesskey=" + access, "dynamodb.secretkey=" + secret}},
		{name: "YCSB keys from env", props: []string{"dynamodb.awsAccessKey=" + envRef("DBARENA_TEST_SECRET_AK"), "dynamodb.awsSecretKey=" + envRef("DBARENA_TEST_SECRET_SK")},
			env: map[string]string{"DBARENA_TEST_SECRET_AK": access, "DBARENA_TEST_SECRET_SK": secret}},
		{name: "credentials file", props: []string{creds(access)}},
		{name: "refused key", props: []string{"dynamodb.accesskey=" + bad, "dynamodb.secretkey=" + secret}, fail: "UnrecognizedClientException"},
		{name: "refused key in credentials file", props: []string{creds(bad)}, fail: "UnrecognizedClientException"},
		{name: "keys given twice", props: []string{"dynamodb.awsSecretKey=" + secret, "dynamodb.secretkey=" + inFile, "dynamodb.accesskey=" + access},
			fail: "both set the same thing"},
	})
}

// TestSecretsAerospike has no server to log in to: it covers the
// error paths of Aerospike's credentials, the YCSB names from the
// environment included.
func TestSecretsAerospike(t *testing.T) {
	const (
		pw    = "Mk7asMarker91"
		other = "Mk7asMarker92"
	)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(t)))
	common := []string{"aerospike.host=" + addr, "aerospike.connect.timeout=500ms"}
	requireNoLeak(t, "aerospike", common, []string{pw, other}, []secretCase{
		{name: "user and password", props: []string{"aerospike.user=bench", "aerospike.password=" + pw}, fail: "cannot connect to aerospike"},
		{name: "YCSB names from env", props: []string{"as.user=bench", "as.password=" + envRef("DBARENA_TEST_SECRET_AS")},
			env: map[string]string{"DBARENA_TEST_SECRET_AS": pw}, fail: "cannot connect to aerospike"},
		{name: "password given twice", props: []string{"as.user=bench", "as.password=" + pw, "aerospike.password=" + other},
			fail: "both set the same thing"},
		{name: "password without user", props: []string{"aerospike.password=" + pw}, fail: "give both or neither"},
	})
}

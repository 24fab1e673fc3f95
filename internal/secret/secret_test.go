package secret_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/redact"
	"github.com/dbarena/dbarena/internal/secret"
)

func TestResolve(t *testing.T) {
	t.Setenv("DBARENA_TEST_PW", "s3cr:et")
	file := filepath.Join(t.TempDir(), "pw")
	require.NoError(t, os.WriteFile(file, []byte("from-file\n"), 0o600))

	for in, want := range map[string]string{
		"plain":                  "plain",
		"${env:DBARENA_TEST_PW}": "s3cr:et",
		"${file:" + file + "}":   "from-file",
		"postgres://u:${env:DBARENA_TEST_PW}@h/db": "postgres://u:s3cr:et@h/db",
		"a${b}c": "a${b}c", // not a reference: kept
		"${env:DBARENA_TEST_PW}-${file:" + file + "}": "s3cr:et-from-file",
	} {
		got, err := secret.Resolve(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}

	_, err := secret.Resolve("${env:DBARENA_TEST_SURELY_UNSET}")
	require.EqualError(t, err, "${env:DBARENA_TEST_SURELY_UNSET}: the environment variable DBARENA_TEST_SURELY_UNSET is not set")
	_, err = secret.Resolve("${file:/no/such/file}")
	require.ErrorContains(t, err, "${file:/no/such/file}: open /no/such/file: no such file or directory")
	_, err = secret.Resolve("${env:}")
	require.ErrorContains(t, err, "want a name")

	t.Setenv("DBARENA_TEST_HOST", "db.internal")
	hide := redact.New()
	m, err := secret.ResolveMap(map[string]string{"redis.password": "${env:DBARENA_TEST_PW}", "redis.addr": "h:1",
		"postgres.url": "host=${env:DBARENA_TEST_HOST} password=${file:" + file + "}"}, hide)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"redis.password": "s3cr:et", "redis.addr": "h:1",
		"postgres.url": "host=db.internal password=from-file"}, m)
	require.Equal(t, "REDACTED REDACTED REDACTED h:1", hide.String("s3cr:et from-file db.internal h:1"),
		"the values of references are hidden, the others shown")
	_, err = secret.ResolveMap(map[string]string{"redis.password": "${env:DBARENA_TEST_SURELY_UNSET}"}, nil)
	require.ErrorContains(t, err, "redis.password: ${env:")
}

func TestResolveBoundsFiles(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big")
	require.NoError(t, os.WriteFile(big, make([]byte, 1<<20+1), 0o600))
	for _, path := range []string{"/dev/zero", big} {
		_, err := secret.Resolve("pw=${file:" + path + "}")
		require.ErrorContains(t, err, "${file:"+path+"}: "+path+": larger than the 1 MiB limit")
	}
}

func TestInClear(t *testing.T) {
	for _, c := range []struct {
		key, value string
		clear      bool
	}{
		{"redis.password", "hunter2", true},
		{"redis.password", "${env:REDIS_PASSWORD}", false},
		{"redis.password", "", false},
		{"dynamodb.secret_key", "abc", true},
		{"postgres.url", "postgres://u:pw@h/db", true},
		{"postgres.url", "postgres://u:${env:PGPASSWORD}@h/db", false},
		{"postgres.url", "postgres://u@h/db", false},
		{"mysql.url", "root:pw@tcp(h:3306)/db", true},
		{"postgres.url", "host=h password=pw", true},
		{"postgres.url", "host=h password=${env:PGPASSWORD}", false},
		{"postgres.url", "postgres://u@h/db?sslpassword=pw", true},
		{"redis.url", "redis://:pw@h:6379", true},
		{"dynamodb.awsCredentialsFile", "/etc/aws.properties", false},
		{"recordcount", "1000", false},
	} {
		require.Equal(t, c.clear, secret.InClear(c.key, c.value), "%s: %s", c.key, c.value)
	}
}

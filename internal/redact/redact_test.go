package redact_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/redact"
)

func TestURL(t *testing.T) {
	for name, c := range map[string]struct {
		in, want  string
		passwords []string
	}{
		"postgres URL":      {"postgres://bench:s3cret@db:5432/ycsb?sslmode=disable", "postgres://bench:REDACTED@db:5432/ycsb?sslmode=disable", []string{"s3cret"}},
		"escaped password":  {"postgres://u:p%40ss%2Fw@h/db", "postgres://u:REDACTED@h/db", []string{"p@ss/w"}},
		"no password":       {"postgres://bench@db/ycsb", "postgres://bench@db/ycsb", nil},
		"colon in password": {"mongodb://u:p:q@h1,h2/db", "mongodb://u:REDACTED@h1,h2/db", []string{"p:q"}},
		"@ in password":     {"postgres://u:p@ss@h/db", "postgres://u:REDACTED@h/db", []string{"p@ss"}},
		"@ in the query":    {"mongodb://h:1/db?x=a@b", "mongodb://h:1/db?x=a@b", nil},
		"redis empty user":  {"redis://:hunter22@10.0.0.7:6379/0", "redis://:REDACTED@10.0.0.7:6379/0", []string{"hunter22"}},
		"redis user":        {"rediss://bench:hunter22@cache:6380", "rediss://bench:REDACTED@cache:6380", []string{"hunter22"}},
		"query password": {"postgres://u@h/db?sslmode=require&password=p%26w&sslpassword=keypw#frag",
			"postgres://u@h/db?sslmode=require&password=REDACTED&sslpassword=REDACTED#frag", []string{"p&w", "keypw"}},
		"mongodb key password": {"mongodb://h/db?tls=true&tlsCertificateKeyFilePassword=kpw&tlsCertificateKeyFile=/k.pem",
			"mongodb://h/db?tls=true&tlsCertificateKeyFilePassword=REDACTED&tlsCertificateKeyFile=/k.pem", []string{"kpw"}},
		"jdbc":           {"jdbc:postgresql://h:5432/db?user=u&password=pw", "jdbc:postgresql://h:5432/db?user=u&password=REDACTED", []string{"pw"}},
		"boolean switch": {"u@tcp(h:3306)/db?allowCleartextPasswords=true", "u@tcp(h:3306)/db?allowCleartextPasswords=true", nil},
		"mysql DSN":      {"root:pw@tcp(127.0.0.1:3306)/ycsb", "root:REDACTED@tcp(127.0.0.1:3306)/ycsb", []string{"pw"}},
		"mysql @ and /":  {"u:p@w/x@tcp(h:1)/db?timeout=5s", "u:REDACTED@tcp(h:1)/db?timeout=5s", []string{"p@w/x"}},
		"mysql no user":  {"tcp(h:1)/db", "tcp(h:1)/db", nil},
		"host:port":      {"127.0.0.1:6379", "127.0.0.1:6379", nil},
		"key=value": {"host=db port=5432 user=bench password=s3cret dbname=ycsb",
			"host=db port=5432 user=bench password=REDACTED dbname=ycsb", []string{"s3cret"}},
		"key = value, spaced": {"host = db password = s3cret", "host = db password = REDACTED", []string{"s3cret"}},
		"key=value quoted":    {`host=db password='a b\'c\\d' dbname=x`, `host=db password='REDACTED' dbname=x`, []string{`a b'c\d`}},
		"key=value escaped": {`password=a\ b sslpassword=kp sslkey=/k.pem`, `password=REDACTED sslpassword=REDACTED sslkey=/k.pem`,
			[]string{"a b", "kp"}},
		"key=value unterminated": {`password='abc`, `password='REDACTED`, []string{"abc"}},
		"plain word":             {"zipfian", "zipfian", nil},
	} {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, c.want, redact.URL(c.in))
			require.Equal(t, c.passwords, redact.Passwords(c.in))
		})
	}
}

func TestSecretKey(t *testing.T) {
	for key, want := range map[string]bool{
		"redis.password": true, "db.passwd": true, "dynamodb.secretkey": true, "dynamodb.awsAccessKey": true,
		"basic.token": true, "x.credentials": true, "mongodb.tlsCertificateKeyFilePassword": true,
		"dynamodb.awsCredentialsFile": false, "redis.tls.key": false, "cql.hosts": false, "recordcount": false,
	} {
		require.Equal(t, want, redact.SecretKey(key), key)
	}
}

func TestProps(t *testing.T) {
	in := map[string]string{
		"redis.password": "hunter2", "db.passwd": "x", "dynamodb.secret_key": "k", "dynamodb.access_key": "AKIA",
		"mongodb.url": "mongodb://u:p@h/db", "aerospike.hosts": "h1:3000", "cql.hosts": "a,b",
		"postgres.dsn": "postgres://u:p@h/db", "postgres.url": "host=h password=p", "mysql.url": "u:p@tcp(h)/db",
		"dynamodb.awsCredentialsFile": "/etc/aws.properties",
	}
	out := redact.Props(in)
	require.Equal(t, map[string]string{
		"redis.password": "REDACTED", "db.passwd": "REDACTED", "dynamodb.secret_key": "REDACTED", "dynamodb.access_key": "REDACTED",
		"mongodb.url": "mongodb://u:REDACTED@h/db", "aerospike.hosts": "h1:3000", "cql.hosts": "a,b",
		"postgres.dsn": "postgres://u:REDACTED@h/db", "postgres.url": "host=h password=REDACTED", "mysql.url": "u:REDACTED@tcp(h)/db",
		"dynamodb.awsCredentialsFile": "/etc/aws.properties",
	}, out)
	require.Equal(t, "hunter2", in["redis.password"], "the input is not changed")
}

func TestRedactor(t *testing.T) {
	r := redact.New()
	r.AddProps(map[string]string{
		"redis.password": "hunter22",
		"postgres.url":   `host=h password='quo"te d' dbname=x`,
		"mongodb.url":    "mongodb://u:p%40ssword@h/db",
		"mysql.url":      "u:pw@tcp(h)/db", // too short to search for
		"recordcount":    "1000",
	})
	r.Add("hunter2") // a secret inside another: the longer is replaced whole
	for name, c := range map[string]struct{ in, want string }{
		"plain":            {"AUTH hunter22 failed", "AUTH REDACTED failed"},
		"inner secret":     {"hunter2 and hunter22", "REDACTED and REDACTED"},
		"decoded":          {"password p@ssword refused", "password REDACTED refused"},
		"as written":       {"dial mongodb://u:p%40ssword@h/db", "dial mongodb://u:REDACTED@h/db"},
		"quoted by %q":     {fmt.Sprintf("bad value %q", `quo"te d`), "bad value \"REDACTED\""},
		"quoted by JSON":   {`{"pw":"quo\"te d"}`, `{"pw":"REDACTED"}`},
		"URL-escaped":      {"?password=quo%22te+d", "?password=REDACTED"},
		"short is left":    {"user u pw pw", "user u pw pw"},
		"not a secret key": {"1000 records", "1000 records"},
	} {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, c.want, r.String(c.in))
		})
	}

	t.Run("error", func(t *testing.T) {
		base := &fs.PathError{Op: "open", Path: "/x/hunter22", Err: fs.ErrNotExist}
		err := r.Error(fmt.Errorf("load: %w", base))
		require.EqualError(t, err, "load: open /x/REDACTED: file does not exist")
		var pe *fs.PathError
		require.ErrorAs(t, err, &pe, "the cause is kept for errors.As")
		require.ErrorIs(t, err, fs.ErrNotExist)
		clean := errors.New("nothing secret")
		require.Same(t, clean, r.Error(clean))
		require.NoError(t, r.Error(nil))
	})

	t.Run("writer", func(t *testing.T) {
		var b bytes.Buffer
		n, err := r.Writer(&b).Write([]byte("pw=hunter22\n"))
		require.NoError(t, err)
		require.Equal(t, len("pw=hunter22\n"), n, "the caller's byte count")
		require.Equal(t, "pw=REDACTED\n", b.String())
	})

	t.Run("logger", func(t *testing.T) {
		var b bytes.Buffer
		log := slog.New(r.Handler(slog.NewTextHandler(&b, nil))).With("url", "redis://:hunter22@h")
		log.WithGroup("g").Warn("refused hunter22", "err", errors.New("WRONGPASS hunter22"),
			"n", 3, slog.Group("inner", "pw", "hunter22"), "v", []string{"hunter22"})
		out := b.String()
		require.NotContains(t, out, "hunter2")
		require.Contains(t, out, `msg="refused REDACTED"`)
		require.Contains(t, out, `url=redis://:REDACTED@h`)
		require.Contains(t, out, `g.err="WRONGPASS REDACTED"`)
		require.Contains(t, out, `g.n=3`)
		require.Contains(t, out, `g.inner.pw=REDACTED`)
		require.Contains(t, out, `g.v=[REDACTED]`)
	})

	t.Run("nil hides nothing", func(t *testing.T) {
		var none *redact.Redactor
		none.Add("hunter22")
		none.AddProps(map[string]string{"redis.password": "hunter22"})
		require.Equal(t, "hunter22", none.String("hunter22"))
		var b strings.Builder
		_, _ = none.Writer(&b).Write([]byte("hunter22"))
		require.Equal(t, "hunter22", b.String())
	})
}

package cli

import (
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"testing"

	_ "github.com/go-sql-driver/mysql" // the "mysql" database/sql driver, to create the test user
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
)

// TestSecretsPostgres gives the PostgreSQL driver a marker password in
// every form it takes. The test server trusts every local login, so a
// password is accepted whatever it is: the successful cases show that no
// output of a working run echoes it, the failing ones (a role that does
// not exist, a port nobody listens on, unparsable strings, a key file)
// cover the messages that quote the connection string.
func TestSecretsPostgres(t *testing.T) {
	u, err := url.Parse(testenv.Addr(t, "DBARENA_TEST_POSTGRES"))
	require.NoError(t, err)
	host, port, user := u.Hostname(), u.Port(), u.User.Username()
	const (
		pw     = "Mk7pgMarker41"
		quoted = `Mk7 pg'Marker42` // written 'Mk7 pg\'Marker42' in key=value form
		query  = "Mk7pgMarker43"
		keyPW  = "Mk7pgMarker44"
		inFile = "Mk7pgMarker45"
	)
	db := "dbarena_secret"
	base := fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", user, net.JoinHostPort(host, port), db)
	withPW := fmt.Sprintf("postgres://%s:%s@%s/%s?sslmode=disable", user, pw, net.JoinHostPort(host, port), db)
	kv := fmt.Sprintf("host=%s port=%s user=%s dbname=%s sslmode=disable", host, port, user, db)
	closed := freePort(t)
	key := keyFile(t, "not a key: "+inFile)
	requireNoLeak(t, "postgres", []string{"table=secret_leak"}, []string{pw, quoted, query, keyPW, inFile}, []secretCase{
		{name: "URL", props: []string{"postgres.url=" + withPW}},
		{name: "URL from env", props: []string{fmt.Sprintf("postgres.url=postgres://%s:%s@%s/%s?sslmode=disable", user, envRef("DBARENA_TEST_SECRET_PG"), net.JoinHostPort(host, port), db)},
			env: map[string]string{"DBARENA_TEST_SECRET_PG": pw}},
		{name: "key=value", props: []string{"postgres.url=" + kv + " password=" + pw}},
		{name: "key=value quoted", props: []string{"postgres.url=" + kv + ` password='Mk7 pg\'Marker42'`}},
		{name: "key=value from env", props: []string{"postgres.url=" + envRef("DBARENA_TEST_SECRET_PGDSN")},
			env: map[string]string{"DBARENA_TEST_SECRET_PGDSN": kv + " password=" + pw}},
		{name: "query parameters", props: []string{"postgres.url=" + base + "&password=" + query + "&sslpassword=" + keyPW}},
		{name: "YCSB JDBC properties", props: []string{
			fmt.Sprintf("db.url=jdbc:postgresql://%s/%s?sslmode=disable", net.JoinHostPort(host, port), db), "db.user=" + user, "db.passwd=" + pw}},
		{name: "unknown role", props: []string{"postgres.url=" + fmt.Sprintf("host=%s port=%s user=dbarena_no_such_role dbname=%s sslmode=disable password='Mk7 pg\\'Marker42'", host, port, db)},
			fail: "refused the login"},
		{name: "nobody listening", props: []string{fmt.Sprintf("postgres.url=postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", user, pw, closed, db)},
			fail: "cannot connect to postgres"},
		{name: "bad port in key=value", props: []string{"postgres.url=host=" + host + " port=notaport password=" + pw},
			fail: "postgres.url="},
		{name: "key file", props: []string{fmt.Sprintf("postgres.url=postgres://%s@%s/%s?sslmode=require&sslkey=%s&sslcert=%s&sslpassword=%s",
			user, net.JoinHostPort(host, port), db, key, key, keyPW)},
			fail: "postgres.url="},
	})
}

// TestSecretsMySQL creates a MariaDB user with a marker password, so
// that the password is checked: the right one loads and runs, a wrong one
// is refused.
func TestSecretsMySQL(t *testing.T) {
	root := testenv.Addr(t, "DBARENA_TEST_MYSQL")
	const (
		pw     = "Mk7myMarker51"
		wrong  = "Mk7myMarker52"
		dbName = "dbarena_secret"
	)
	admin, err := sql.Open("mysql", root)
	require.NoError(t, err)
	defer admin.Close()
	for _, h := range []string{"%", "localhost", "127.0.0.1"} {
		for _, q := range []string{
			"CREATE USER IF NOT EXISTS 'dbarena_secret'@'" + h + "' IDENTIFIED BY '" + pw + "'",
			"ALTER USER 'dbarena_secret'@'" + h + "' IDENTIFIED BY '" + pw + "'",
			"GRANT ALL ON `" + dbName + "`.* TO 'dbarena_secret'@'" + h + "'",
		} {
			_, err := admin.Exec(q)
			require.NoError(t, err, q)
		}
	}
	addr := root[len("root@tcp(") : len(root)-len(")/")]
	dsn := func(p string) string { return fmt.Sprintf("mysql.url=dbarena_secret:%s@tcp(%s)/%s", p, addr, dbName) }
	requireNoLeak(t, "mysql", []string{"table=secret_leak", "mysql.dialect=mariadb"}, []string{pw, wrong}, []secretCase{
		{name: "DSN", props: []string{dsn(pw)}},
		{name: "DSN from env", props: []string{dsn(envRef("DBARENA_TEST_SECRET_MY"))}, env: map[string]string{"DBARENA_TEST_SECRET_MY": pw}},
		{name: "YCSB JDBC properties", props: []string{"db.url=jdbc:mysql://" + addr + "/" + dbName, "db.user=dbarena_secret", "db.passwd=" + pw}},
		{name: "wrong password", props: []string{dsn(wrong)}, fail: "refused the login"},
		{name: "bad DSN", props: []string{fmt.Sprintf("mysql.url=dbarena_secret:%s@tcp(%s)", pw, addr) + dbName + "?timeout=x"},
			fail: "mysql.url="},
	})
}

// freePort returns a loopback port nobody listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

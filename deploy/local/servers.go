package local

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// launchRedis runs redis-server without persistence: a benchmark of the
// in-memory store, as YCSB's Redis studies measure it. Options become
// redis-server flags (appendonly: "yes" turns the AOF on).
func launchRedis(ctx context.Context, d *deployment) error {
	bin, err := need("redis-server", "apt-get install redis-server")
	if err != nil {
		return err
	}
	dir, err := d.nodeDir("redis")
	if err != nil {
		return err
	}
	port, err := d.port("127.0.0.1")
	if err != nil {
		return err
	}
	args := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--save", "", "--appendonly", "no", "--daemonize", "no"}
	if mem := d.req.MemoryBytes; mem > 0 {
		// Leave room for the server's own overhead inside the cgroup.
		args = append(args, "--maxmemory", strconv.FormatInt(mem*9/10, 10))
	}
	for k, v := range d.req.Options {
		args = append(args, "--"+k, v)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	return d.serveOne(ctx, &cmdSpec{cmd: cmd, logPath: filepath.Join(dir, "log"), dataDir: dir}, port, "Ready to accept connections", func() string { return versionOf(bin) })
}

// launchMariaDB runs MariaDB (Debian's MySQL) in the foreground with no
// option files, so the machine's my.cnf cannot change the comparison.
func launchMariaDB(ctx context.Context, d *deployment) error {
	server := "/usr/sbin/mariadbd"
	if _, err := os.Stat(server); err != nil {
		if server, err = need("mariadbd", "apt-get install mariadb-server"); err != nil {
			return err
		}
	}
	installDB, err := need("mariadb-install-db", "apt-get install mariadb-server")
	if err != nil {
		return err
	}
	dir, err := d.nodeDir("mariadb")
	if err != nil {
		return err
	}
	data := filepath.Join(dir, "data")
	userArg := []string{}
	if os.Geteuid() == 0 {
		userArg = []string{"--user=root"}
	}
	args := append([]string{"--no-defaults", "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db"}, userArg...)
	if err := runAs(nil, dir, installDB, args...); err != nil {
		return err
	}
	port, err := d.port("127.0.0.1")
	if err != nil {
		return err
	}
	sargs := append([]string{"--no-defaults"}, userArg...)
	sargs = append(sargs, "--datadir="+data, "--port="+strconv.Itoa(port), "--bind-address=127.0.0.1",
		"--socket="+filepath.Join(dir, "sock"), "--pid-file="+filepath.Join(dir, "pid"),
		"--log-error="+filepath.Join(dir, "log"), "--skip-log-bin", "--max-connections=600")
	if mem := d.req.MemoryBytes; mem > 0 {
		// InnoDB's guidance for a dedicated server: most memory to the pool.
		sargs = append(sargs, fmt.Sprintf("--innodb-buffer-pool-size=%d", mem/2))
	}
	for k, v := range d.req.Options {
		sargs = append(sargs, "--"+k+"="+v)
	}
	cmd := exec.Command(server, sargs...)
	cmd.Dir = dir
	return d.serveOne(ctx, &cmdSpec{cmd: cmd, logPath: filepath.Join(dir, "log"), dataDir: data, grace: time.Minute}, port, "", func() string { return versionOf(server) })
}

// launchDynamoDB runs DynamoDB Local, in memory unless options say
// inMemory: "false" (then it keeps its SQLite file in the data dir).
func launchDynamoDB(ctx context.Context, d *deployment) error {
	java, err := jre().path()
	if err != nil {
		return err
	}
	lib, err := mavenLib("dynamodb-local", DynamoDBLocalVersion, "dynamodb-pom.xml", func(s string) { d.log.Info(s) })
	if err != nil {
		return err
	}
	dir, err := d.nodeDir("dynamodb")
	if err != nil {
		return err
	}
	port, err := d.port("127.0.0.1")
	if err != nil {
		return err
	}
	storage := []string{"-inMemory"}
	if d.req.Options["inMemory"] == "false" {
		storage = []string{"-dbPath", dir}
	}
	args := append([]string{heapFlag(d.req.MemoryBytes, 256<<20), "-Djava.library.path=" + lib, "-cp", lib + "/*",
		"com.amazonaws.services.dynamodbv2.local.main.ServerRunner"}, storage...)
	args = append(args, "-sharedDb", "-port", strconv.Itoa(port), "-disableTelemetry")
	cmd := exec.Command(java, args...)
	cmd.Dir = dir
	return d.serveOne(ctx, &cmdSpec{cmd: cmd, logPath: filepath.Join(dir, "log"), dataDir: dir}, port, "", func() string { return "DynamoDB Local " + DynamoDBLocalVersion })
}

// heapFlag sizes a JVM heap: half the memory limit (the rest is off-heap
// memory, metaspace and the page cache), or def without a limit.
func heapFlag(limit, def int64) string {
	h := def
	if limit > 0 {
		h = limit / 2
	}
	return fmt.Sprintf("-Xmx%dm", h>>20)
}

package local

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clusterAddrs are the loopback addresses of an n-node local cluster: one
// node uses 127.0.0.1; a cluster uses 127.0.1.1.. (all of 127/8 is on lo),
// away from the addresses scripts/servers gives its test cluster.
func clusterAddrs(n int) []string {
	if n <= 1 {
		return []string{"127.0.0.1"}
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("127.0.1.%d", i+1)
	}
	return out
}

// cassandraJVMOptions reads the shared JVM options file. The C1-only JIT
// line is dropped: it speeds up short-lived test nodes, but a benchmark
// must measure the server with the optimising compiler it runs in
// production.
func cassandraJVMOptions() ([]string, error) {
	text, err := asset("cassandra-jvm17.options", nil)
	if err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "-XX:TieredStopAtLevel") {
			continue
		}
		out = append(out, strings.Fields(line)...)
	}
	return out, sc.Err()
}

// launchCassandra starts every node at once, each seeding all of them, and
// waits until each listens for CQL clients.
func launchCassandra(ctx context.Context, d *deployment) error {
	c, err := cassandraInstall(d)
	if err != nil {
		return err
	}
	addrs := clusterAddrs(d.req.Nodes)
	if c.storage, err = d.port(addrs...); err != nil {
		return err
	}
	if c.native, err = d.port(addrs...); err != nil {
		return err
	}
	for _, a := range addrs {
		c.seeds = append(c.seeds, fmt.Sprintf("%s:%d", a, c.storage))
	}
	var nodes []*node
	for i, addr := range addrs {
		n, err := d.cassandraNode(c, i, addr)
		if err != nil {
			return err
		}
		nodes = append(nodes, n)
	}
	for i, n := range nodes {
		ready := all(logReady(n.proc, "Starting listening for CQL clients"), dialReady(fmt.Sprintf("%s:%d", addrs[i], c.native)))
		if err := n.waitReady(ctx, d.readyTimeout, ready); err != nil {
			return err
		}
	}
	if err := d.reachAt(hostPorts(addrs, c.native)...); err != nil {
		return err
	}
	d.version = "Apache Cassandra " + CassandraVersion
	return nil
}

// cassandraSetup is what every node of a local Cassandra cluster runs
// with: the JVM, the jars and their options, the log configuration,
// and the cluster's ports and seeds.
type cassandraSetup struct {
	java, logback   string
	jars, jvm       []string
	storage, native int
	seeds           []string
}

// cassandraInstall finds Java, downloads Cassandra's jars when missing
// and writes the log configuration.
func cassandraInstall(d *deployment) (cassandraSetup, error) {
	var c cassandraSetup
	var err error
	if c.java, err = jre().path(); err != nil {
		return c, err
	}
	lib, err := mavenLib("cassandra", CassandraVersion, "cassandra-pom.xml", func(s string) { d.log.Info(s) })
	if err != nil {
		return c, err
	}
	c.jars, err = filepath.Glob(filepath.Join(lib, "*.jar"))
	if err != nil || len(c.jars) == 0 {
		return c, fmt.Errorf("no jars in %s: remove it to download again", lib)
	}
	if c.jvm, err = cassandraJVMOptions(); err != nil {
		return c, err
	}
	c.logback = filepath.Join(d.dir, "logback.xml")
	text, err := asset("cassandra-logback.xml", nil)
	if err != nil {
		return c, err
	}
	return c, os.WriteFile(c.logback, []byte(text), 0o644)
}

// cassandraNode writes node i's configuration and starts it at addr.
func (d *deployment) cassandraNode(c cassandraSetup, i int, addr string) (*node, error) {
	jmx, err := d.port("127.0.0.1")
	if err != nil {
		return nil, err
	}
	dir, err := d.nodeDir(fmt.Sprintf("node%d", i+1))
	if err != nil {
		return nil, err
	}
	yaml, err := asset("cassandra.yaml", map[string]string{
		"CLUSTER_NAME": "dbarena-" + d.req.Name, "ADDRESS": addr, "SEEDS": strings.Join(c.seeds, ","),
		"STORAGE_PORT": strconv.Itoa(c.storage), "NATIVE_PORT": strconv.Itoa(c.native)})
	if err != nil {
		return nil, err
	}
	// The test template keeps one compaction thread for two shared
	// cores; a benchmark node gets Cassandra's default back.
	yaml = strings.Replace(yaml, "concurrent_compactors: 1\n", "", 1)
	conf := filepath.Join(dir, "cassandra.yaml")
	if err := os.WriteFile(conf, []byte(yaml), 0o644); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "triggers"), 0o755); err != nil {
		return nil, err
	}
	heap := heapFlag(d.req.MemoryBytes, 1<<30)
	args := append([]string{strings.Replace(heap, "-Xmx", "-Xms", 1), heap}, c.jvm...)
	args = append(args, "-Dcassandra.config=file://"+conf, "-Dcassandra-foreground=yes",
		"-Dcassandra.storagedir="+dir, "-Dcassandra.logdir="+dir, "-Dcassandra.triggers_dir="+filepath.Join(dir, "triggers"),
		"-Dlogback.configurationFile="+c.logback, "-Dcassandra.jmx.local.port="+strconv.Itoa(jmx),
		"-Dcassandra.skip_wait_for_gossip_to_settle=0",
		"-cp", strings.Join(c.jars, ":"), "org.apache.cassandra.service.CassandraDaemon")
	cmd := exec.Command(c.java, args...)
	cmd.Dir = dir
	// SIGTERM drains the node (about 13 s when idle).
	return d.start(d.hostName(i), &cmdSpec{cmd: cmd, logPath: filepath.Join(dir, "log"),
		dataDir: filepath.Join(dir, "data"), stopSignal: syscall.SIGTERM, grace: time.Minute})
}

// launchScylla starts ScyllaDB nodes from an installed scylla binary in
// developer mode (no I/O tuning or CPU pinning checks), with --smp from the
// CPU limit and --memory from the memory limit (options "smp" and
// "memory" override them).
func launchScylla(ctx context.Context, d *deployment) error {
	bin, err := need("scylla", "install ScyllaDB (https://docs.scylladb.com/stable/getting-started/install-scylla/), or compare with cassandra locally: it speaks the same CQL")
	if err != nil {
		return err
	}
	addrs := clusterAddrs(d.req.Nodes)
	native, err := d.port(addrs...)
	if err != nil {
		return err
	}
	storage, err := d.port(addrs...)
	if err != nil {
		return err
	}
	smp := d.req.Options["smp"]
	if smp == "" {
		smp = "1"
		if d.req.CPUs >= 1 {
			smp = strconv.Itoa(int(d.req.CPUs))
		}
	}
	mem := d.req.Options["memory"]
	if mem == "" {
		mem = "1G"
		if d.req.MemoryBytes > 0 {
			mem = fmt.Sprintf("%dM", d.req.MemoryBytes>>20)
		}
	}
	var nodes []*node
	for i, addr := range addrs {
		dir, err := d.nodeDir(fmt.Sprintf("node%d", i+1))
		if err != nil {
			return err
		}
		api, err := d.port("127.0.0.1")
		if err != nil {
			return err
		}
		cmd := exec.Command(bin, "--developer-mode=1", "--overprovisioned", "--smp", smp, "--memory", mem,
			"--workdir", dir, "--listen-address", addr, "--rpc-address", addr,
			"--native-transport-port", strconv.Itoa(native), "--storage-port", strconv.Itoa(storage),
			"--api-address", "127.0.0.1", "--api-port", strconv.Itoa(api),
			"--seed-provider-parameters", "seeds="+addrs[0], "--prometheus-port", "0")
		cmd.Dir = dir
		n, err := d.start(d.hostName(i), &cmdSpec{cmd: cmd, logPath: filepath.Join(dir, "log"),
			dataDir: filepath.Join(dir, "data"), grace: time.Minute})
		if err != nil {
			return err
		}
		nodes = append(nodes, n)
	}
	for i, n := range nodes {
		if err := n.waitReady(ctx, d.readyTimeout, dialReady(fmt.Sprintf("%s:%d", addrs[i], native))); err != nil {
			return err
		}
	}
	if err := d.reachAt(hostPorts(addrs, native)...); err != nil {
		return err
	}
	d.version = versionOf(bin)
	return nil
}

// hostPorts is each host at port.
func hostPorts(hosts []string, port int) []string {
	out := make([]string, len(hosts))
	for i, h := range hosts {
		out[i] = net.JoinHostPort(h, strconv.Itoa(port))
	}
	return out
}

package terraform_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/terraform"
)

// fakeTofu stands in for tofu, which needs a cloud: it logs each call
// (directory and arguments) and prints canned outputs; FAIL makes apply
// fail, as a quota error would.
func fakeTofu(t *testing.T, failApply bool) (bin, log string) {
	return fakeTofuOutput(t, failApply, `{"db_external_ips":{"value":["34.1.2.3","34.1.2.4","34.1.2.5"]},"db_internal_ips":{"value":["10.0.0.2","10.0.0.3","10.0.0.4"]},"loader_external_ips":{"value":["34.9.9.9"]},"db_port":{"value":9042}}`)
}

// fakeTofuOutput is fakeTofu printing output as `output -json`.
func fakeTofuOutput(t *testing.T, failApply bool, output string) (bin, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls")
	fail := "0"
	if failApply {
		fail = "1"
	}
	script := `#!/bin/sh
echo "$1 $(basename $(pwd))" >> ` + log + `
case "$1" in
  apply) [ ` + fail + ` = 1 ] && { echo "Error: quota exceeded" >&2; exit 1; } ;;
  output) echo '` + output + `' ;;
esac
exit 0
`
	bin = filepath.Join(dir, "tofu")
	require.NoError(t, os.WriteFile(bin, []byte(script), 0o755))
	return bin, log
}

func request(work string) deploy.Request {
	return deploy.Request{Name: "scylla", Database: "scylladb", Nodes: 3, WorkDir: work, Options: map[string]string{
		"cloud": "gcp", "project": "bench", "operator_cidr": "203.0.113.7/32", "ssh_public_key": "ssh-ed25519 AAAA me",
		"machine_type": "n2d-standard-8", "loaders": "1"}}
}

// listen is a port that accepts connections on 127.0.0.1, as a database
// VM's would.
func listen(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

// fakeSSH stands in for ssh: it logs its arguments and succeeds.
func fakeSSH(t *testing.T) (bin, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls")
	bin = filepath.Join(dir, "ssh")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\necho \"$@\" >> "+log+"\n"), 0o755))
	return bin, log
}

func TestUpAndDown(t *testing.T) {
	port := listen(t)
	bin, log := fakeTofuOutput(t, false, fmt.Sprintf(`{"db_external_ips":{"value":["127.0.0.1","127.0.0.1","127.0.0.1"]},"db_internal_ips":{"value":["10.0.0.2","10.0.0.3","10.0.0.4"]},"loader_external_ips":{"value":["34.9.9.9","34.9.9.10"]},"db_port":{"value":%d}}`, port))
	ssh, sshLog := fakeSSH(t)
	work := t.TempDir()
	req := request(work)
	req.Options["ssh_identity"] = "/home/me/.ssh/bench"
	d, err := terraform.Provider{Tool: bin, SSH: ssh}.Up(context.Background(), req)
	require.NoError(t, err)
	p := fmt.Sprint(port)
	require.Equal(t, map[string]string{"cql.hosts": "127.0.0.1,127.0.0.1,127.0.0.1", "cql.port": p, "cql.replication.factor": "3", "cql.discovery": "false"}, d.Properties(),
		"from outside, the driver keeps to the external addresses: the nodes advertise internal ones")
	require.Len(t, d.Hosts(), 5, "three database VMs and two loaders, each with node_exporter")
	require.Equal(t, "http://127.0.0.1:9100/metrics", d.Hosts()[0].MetricsURL)

	// The loaders run on the loader VMs, over ssh, and reach the
	// databases by their internal addresses.
	lm, ok := d.(deploy.LoadMachines)
	require.True(t, ok)
	require.Equal(t, map[string]string{"cql.hosts": "10.0.0.2,10.0.0.3,10.0.0.4", "cql.port": p, "cql.replication.factor": "3"}, lm.LoaderProperties())
	cmds := lm.LoaderCommands()
	require.Len(t, cmds, 2)
	line := strings.Join(cmds[1], " ")
	require.Contains(t, line, "BatchMode=yes")
	require.Contains(t, line, "-i /home/me/.ssh/bench")
	require.True(t, strings.HasSuffix(line, "-l dbarena 34.9.9.10"), line)
	calls, err := os.ReadFile(sshLog)
	require.NoError(t, err)
	require.Contains(t, string(calls), "34.9.9.10 true", "Up waits until each loader VM runs a command")

	states, err := filepath.Glob(filepath.Join(work, "dbarena-terraform-scylla-*"))
	require.NoError(t, err)
	require.Len(t, states, 1)
	fi, err := os.Stat(filepath.Join(states[0], "terraform.tfvars.json"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the variables file is its owner's only")
	vars, err := os.ReadFile(filepath.Join(states[0], "terraform.tfvars.json"))
	require.NoError(t, err)
	require.Contains(t, string(vars), `"db_count": 3`)
	require.Contains(t, string(vars), `"db_machine_type": "n2d-standard-8"`)
	_, err = os.Stat(filepath.Join(states[0], "main.tf"))
	require.NoError(t, err, "the module is copied into the state directory")

	require.NoError(t, d.Down(context.Background()))
	calls, err = os.ReadFile(log)
	require.NoError(t, err)
	var verbs []string
	for _, l := range strings.Split(strings.TrimSpace(string(calls)), "\n") {
		verbs = append(verbs, strings.Fields(l)[0])
	}
	require.Equal(t, []string{"init", "apply", "output", "destroy"}, verbs)
	_, err = os.Stat(states[0])
	require.True(t, os.IsNotExist(err), "the state directory goes after a destroy")
}

func TestFailedApplyDestroys(t *testing.T) {
	bin, log := fakeTofu(t, true)
	_, err := terraform.Provider{Tool: bin}.Up(context.Background(), request(t.TempDir()))
	require.ErrorContains(t, err, "quota exceeded")
	calls, err := os.ReadFile(log)
	require.NoError(t, err)
	require.Regexp(t, `(?s)apply .*\ndestroy `, string(calls), "what a failed apply created is destroyed")
}

func TestCockroachClusterSpreadsWorkers(t *testing.T) {
	port := listen(t)
	bin, _ := fakeTofuOutput(t, false, fmt.Sprintf(`{"db_external_ips":{"value":["127.0.0.1","127.0.0.1","127.0.0.1"]},"db_internal_ips":{"value":["10.0.0.2","10.0.0.3","10.0.0.4"]},"loader_external_ips":{"value":[]},"db_port":{"value":%d}}`, port))
	req := request(t.TempDir())
	req.Database = "cockroachdb"
	// No CockroachDB here: SQL answers on the third try, as once the
	// first VM's boot script has run cockroach init.
	tries := 0
	answers := func(_ context.Context, driverName string, props map[string]string) error {
		require.Equal(t, "postgres", driverName)
		require.Equal(t, "cockroachdb", props["postgres.dialect"], "the catalogue's dialect")
		tries++
		if tries < 3 {
			return errors.New("node is waiting for cluster initialization")
		}
		return nil
	}
	d, err := terraform.Provider{Tool: bin, Answers: answers}.Up(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, 3, tries, "Up waits for the driver, not only the port")
	defer d.Down(context.Background())
	p := fmt.Sprint(port)
	require.Equal(t, map[string]string{"postgres.url": "postgres://root@10.0.0.2:" + p + "/defaultdb?sslmode=disable",
		"postgres.hosts": "10.0.0.2:" + p + ",10.0.0.3:" + p + ",10.0.0.4:" + p}, d.(deploy.LoadMachines).LoaderProperties())
}

func TestUnansweringDatabaseDestroys(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close()) // nothing answers there
	bin, log := fakeTofuOutput(t, false, fmt.Sprintf(`{"db_external_ips":{"value":["127.0.0.1"]},"db_internal_ips":{"value":["10.0.0.2"]},"loader_external_ips":{"value":[]},"db_port":{"value":%d}}`, port))
	_, err = terraform.Provider{Tool: bin, ReadyTimeout: time.Second}.Up(context.Background(), request(t.TempDir()))
	require.ErrorContains(t, err, "did not answer within 1s")
	calls, err := os.ReadFile(log)
	require.NoError(t, err)
	require.Contains(t, string(calls), "destroy ", "VMs whose database never answers are destroyed")
}

func TestVarsRefuseTheInternet(t *testing.T) {
	req := request("")
	for opt, want := range map[string]string{
		"operator_cidr=0.0.0.0/0": "opens the VMs to the whole internet",
		"operator_cidr=me":        "want your address range",
		"cloud=azure":             "want gcp, aws or docker",
		"colour=blue":             `unknown option "colour"`,
		"project=":                "option project",
	} {
		r := req
		r.Options = map[string]string{}
		for k, v := range req.Options {
			r.Options[k] = v
		}
		k, v, _ := strings.Cut(opt, "=")
		r.Options[k] = v
		_, _, err := terraform.Vars(r)
		require.ErrorContains(t, err, want, opt)
	}
	r := req
	r.Database = "aerospike"
	_, _, err := terraform.Vars(r)
	require.ErrorContains(t, err, "not supported here yet")
}

// TestDockerCloudVars: the docker cloud's variables come from the
// catalogue's image (or the local one), and what means nothing for
// containers (machine types, zones, disks) is refused, naming the
// option; a cluster is formed where one environment can seed it.
func TestDockerCloudVars(t *testing.T) {
	req := func(db string, nodes int, opts map[string]string) deploy.Request {
		o := map[string]string{"cloud": "docker", "ssh_public_key": "ssh-ed25519 AAAA me"}
		for k, v := range opts {
			o[k] = v
		}
		return deploy.Request{Name: "d", Database: db, Nodes: nodes, Options: o}
	}
	cloud, vars, err := terraform.Vars(req("redis", 1, map[string]string{"image": deploy.LocalImage, "loaders": "2"}))
	require.NoError(t, err)
	require.Equal(t, "docker", cloud)
	require.Equal(t, "dbarena.local/redis:7.0", vars["db_image"])
	require.Equal(t, 6379, vars["db_port"])
	require.Equal(t, 2, vars["loader_count"])
	require.Contains(t, vars["db_command"], "--protected-mode", "the loaders reach it from other containers")
	require.NotContains(t, vars["db_command"], "", "the Docker provider refuses an empty argument")
	require.Contains(t, vars["db_command"], " ", `--save "" as Redis reads it`)
	_, vars, err = terraform.Vars(req("postgres", 1, nil))
	require.NoError(t, err)
	require.Equal(t, "postgres:17", vars["db_image"], "the catalogue's image, for an engine that can pull it")
	require.Contains(t, vars["db_env"], "POSTGRES_HOST_AUTH_METHOD=trust")
	for opts, want := range map[string]string{
		"machine_type=n2d-standard-8": "option machine_type is for the gcp and aws clouds; the docker cloud takes cloud, loaders, ssh_user, ssh_public_key, ssh_identity, image",
		"ssh_public_key=":             "option ssh_public_key: want the text of your public key",
		"loaders=many":                `option loaders: want a whole number >= 0, got "many"`,
	} {
		k, v, _ := strings.Cut(opts, "=")
		_, _, err := terraform.Vars(req("postgres", 1, map[string]string{k: v}))
		require.ErrorContains(t, err, want, opts)
	}

	// A cluster seeded by its first node's name on the network; each
	// node finds its own address, which no shared environment could
	// give: a database told its own is refused, naming what runs.
	_, vars, err = terraform.Vars(req("cassandra", 3, map[string]string{"image": "dbarena.local/cassandra:5.0"}))
	require.NoError(t, err)
	require.Equal(t, 3, vars["db_count"])
	require.Equal(t, "dbarena.local/cassandra:5.0", vars["db_image"])
	require.Subset(t, vars["db_env"], []string{"CASSANDRA_SEEDS=db-1", "MAX_HEAP_SIZE=1G", "JVM_EXTRA_OPTS=-Dcassandra.consistent.rangemovement=false"},
		"seeded by the first, heaps for a shared engine, bootstrapping together")
	require.NotContains(t, strings.Join(vars["db_env"].([]string), " "), "CASSANDRA_BROADCAST_ADDRESS", "each node's own address is the container's")
	_, vars, err = terraform.Vars(req("cassandra", 1, nil))
	require.NoError(t, err)
	require.NotContains(t, strings.Join(vars["db_env"].([]string), " "), "CASSANDRA_SEEDS", "one node seeds itself")
	_, vars, err = terraform.Vars(req("scylladb", 3, nil))
	require.NoError(t, err)
	require.Equal(t, []string{"--seeds", "db-1"}, vars["db_command"].([]string)[:2])
	_, _, err = terraform.Vars(req("cockroachdb", 3, nil))
	require.ErrorContains(t, err, "nodes: 3: the docker cloud forms clusters of databases told only their seed (cassandra, scylladb); cockroachdb needs each node told its own address")
	_, _, err = terraform.Vars(req("postgres", 3, nil))
	require.ErrorContains(t, err, "nodes: 3: postgres runs on one VM here")
	_, _, err = terraform.Vars(deploy.Request{Name: "g", Database: "postgres", Options: map[string]string{"cloud": "gcp", "image": "local"}})
	require.ErrorContains(t, err, "option image is the docker cloud's")
}

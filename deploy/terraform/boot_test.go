package terraform_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/terraform"
)

// bootScript evaluates a module's database boot script, as tofu would,
// for VM index of a cluster at ips, with the variables dbarena gives a
// request.
func bootScript(t *testing.T, cloud string, req deploy.Request, ips []string, index int) string {
	t.Helper()
	_, vars, err := terraform.Vars(req)
	require.NoError(t, err)
	v := map[string]cty.Value{}
	for k, x := range vars {
		v[k] = cty.StringVal(fmt.Sprint(x))
	}
	var list []cty.Value
	for _, ip := range ips {
		list = append(list, cty.StringVal(ip))
	}
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(v), "local": cty.ObjectVal(map[string]cty.Value{"db_ips": cty.ListVal(list)})},
		Functions: map[string]function.Function{"join": stdlib.JoinFunc},
	}
	file, diags := hclparse.NewParser().ParseHCLFile(filepath.Join("modules", cloud, "main.tf"))
	require.False(t, diags.HasErrors(), diags.Error())
	for _, b := range file.Body.(*hclsyntax.Body).Blocks {
		if a, ok := b.Body.Attributes["db_startup"]; ok && b.Type == "locals" {
			val, diags := a.Expr.Value(ctx)
			require.False(t, diags.HasErrors(), diags.Error())
			// The instances put their index in, as replace() does.
			return strings.ReplaceAll(val.AsString(), "@NODE_INDEX@", fmt.Sprint(index))
		}
	}
	t.Fatal("no db_startup local")
	return ""
}

// runBoot runs a boot script under bash with the programs it would
// change the machine with (apt-get, docker, mount...) stood in for by
// ones that log their arguments, and returns the log.
func runBoot(t *testing.T, script string) string {
	return runBootWith(t, script, "")
}

// runBootWith is runBoot with `docker exec` answering execAnswer and
// failing, as a cluster's init does when it is done already.
func runBootWith(t *testing.T, script, execAnswer string) string {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	for _, prog := range []string{"apt-get", "systemctl", "docker", "mkdir", "mdadm", "mkfs.xfs", "mount"} {
		stub := fmt.Sprintf("#!/bin/sh\necho \"%s $*\" >> %s\n", prog, log)
		if prog == "docker" && execAnswer != "" {
			stub += fmt.Sprintf("[ \"$1\" = exec ] && { echo %q; exit 1; }\nexit 0\n", execAnswer)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, prog), []byte(stub), 0o755))
	}
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "boot script failed: %s\n%s", out, script)
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	return string(b)
}

// TestBootScriptsFormClusters runs the modules' boot scripts, evaluated
// from the HCL, under bash: each VM of a cluster starts its database
// with the first VM as seed and its own address advertised, and only the
// first runs the cluster's init.
func TestBootScriptsFormClusters(t *testing.T) {
	ips := []string{"10.0.0.2", "10.0.0.3", "10.0.0.4"}
	req := func(db string) deploy.Request {
		r := request("")
		r.Database, r.Nodes = db, 3
		r.Options = map[string]string{}
		for k, v := range request("").Options {
			r.Options[k] = v
		}
		return r
	}
	for _, cloud := range []string{"gcp", "aws"} {
		t.Run(cloud, func(t *testing.T) {
			r := req("cassandra")
			if cloud == "aws" {
				r.Options["cloud"], r.Options["ami"] = "aws", "ami-123"
				delete(r.Options, "project")
			}
			with := func(db string) deploy.Request { x := r; x.Database = db; return x }

			calls := runBoot(t, bootScript(t, cloud, with("cassandra"), ips, 1))
			require.Contains(t, calls, "-e CASSANDRA_SEEDS=10.0.0.2 -e CASSANDRA_BROADCAST_ADDRESS=10.0.0.3")
			require.Contains(t, calls, "-v /mnt/data:/var/lib/cassandra")
			require.NotContains(t, calls, "docker exec", "no init for Cassandra")

			calls = runBoot(t, bootScript(t, cloud, with("scylladb"), ips, 2))
			require.Contains(t, calls, "scylladb/scylla:6.2 --seeds 10.0.0.2 --developer-mode 0")

			calls = runBoot(t, bootScript(t, cloud, with("cockroachdb"), ips, 0))
			require.Contains(t, calls, "start --insecure --advertise-addr=10.0.0.2 --join=10.0.0.2,10.0.0.3,10.0.0.4")
			require.Contains(t, calls, "docker exec db /cockroach/cockroach init --insecure --host=localhost:26257", "the first VM initialises the cluster")
			calls = runBoot(t, bootScript(t, cloud, with("cockroachdb"), ips, 1))
			require.NotContains(t, calls, "docker exec", "only the first")
			// On a reboot the first VM's init answers that it is done:
			// the boot script goes on rather than retrying for ever.
			calls = runBootWith(t, bootScript(t, cloud, with("cockroachdb"), ips, 0), "ERROR: cluster has already been initialized")
			require.Equal(t, 1, strings.Count(calls, "docker exec"))

			one := with("postgres")
			one.Nodes = 1
			calls = runBoot(t, bootScript(t, cloud, one, ips[:1], 0))
			require.Contains(t, calls, "-e POSTGRES_DB=ycsb -e POSTGRES_HOST_AUTH_METHOD=trust postgres:17")
			require.Contains(t, calls, "apt-get install -y -q docker.io prometheus-node-exporter")

			// Every database the provider runs boots on one VM.
			for _, db := range []string{"cassandra", "cockroachdb", "mariadb", "mongodb", "postgres", "redis", "scylladb"} {
				one := with(db)
				one.Nodes = 1
				calls := runBoot(t, bootScript(t, cloud, one, ips[:1], 0))
				require.Regexp(t, `(?m)^docker run -d --name db --restart unless-stopped --network host -v /mnt/data:/\S+ .*\S+:\S+`, calls, db)
				require.NotContains(t, calls, "$SE", "%s: every boot variable expanded", db)
			}
		})
	}
	_, _, err := terraform.Vars(func() deploy.Request { x := req("postgres"); return x }())
	require.ErrorContains(t, err, "postgres runs on one VM here")
}

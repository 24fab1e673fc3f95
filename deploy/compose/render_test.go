package compose_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/compose"
)

// load validates a compose file against the Compose specification with
// the reference Go implementation of it, as `docker compose config`
// would.
func load(t *testing.T, dir string) *types.Project {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "compose.yml"))
	require.NoError(t, err)
	p, err := loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(dir, "compose.yml"), Content: b}},
		Environment: map[string]string{},
	}, func(o *loader.Options) { o.SetProjectName("check", true) })
	require.NoError(t, err, "%s\n%s", dir, b)
	return p
}

func TestEveryDatabaseRendersValidCompose(t *testing.T) {
	var dbs []string
	for _, d := range deploy.Databases() {
		dbs = append(dbs, d.Name)
	}
	for _, db := range dbs {
		for _, nodes := range []int{1, 3} {
			req := deploy.Request{Name: "t-" + db, Database: db, Nodes: nodes, CPUs: 1.5, MemoryBytes: 2 << 30}
			_, err := compose.Render(req)
			if nodes == 3 && err != nil {
				require.ErrorContains(t, err, "runs "+db+" as one node", "only the clustered databases take nodes")
				continue
			}
			require.NoError(t, err, db)
			dir := t.TempDir()
			proj, err := compose.Write(req, dir)
			require.NoError(t, err)
			p := load(t, dir)
			require.Len(t, p.Services, nodes, db, "the loader has a profile: up leaves it out")
			require.Len(t, p.DisabledServices, 1, db)
			ld := p.DisabledServices["loader"]
			require.Equal(t, compose.LoaderImage, ld.Image)
			require.Equal(t, []string{"ycsb", "run"}, []string(ld.Command[:2]), db)
			for name, svc := range p.Services {
				require.NotNil(t, svc.HealthCheck, "%s/%s: a health check that means ready", db, name)
				require.NotEmpty(t, svc.HealthCheck.Test, "%s/%s", db, name)
				require.NotEmpty(t, svc.Ports, "%s/%s", db, name)
				for _, port := range svc.Ports {
					require.Equal(t, "127.0.0.1", port.HostIP, "%s/%s: a database port is never published beyond the loopback", db, name)
				}
				require.NotNil(t, svc.Deploy, "%s/%s: limits", db, name)
				require.Equal(t, types.NanoCPUs(1.5), svc.Deploy.Resources.Limits.NanoCPUs, "%s/%s", db, name)
				require.Equal(t, types.UnitBytes(2<<30), svc.Deploy.Resources.Limits.MemoryBytes, "%s/%s", db, name)
			}
			addrs := make([]string, len(proj.Exposed))
			for i := range addrs {
				addrs[i] = "127.0.0.1:4000" + string(rune('0'+i))
			}
			require.NotEmpty(t, proj.Props(addrs), "%s: driver properties", db)
		}
	}
}

func TestSecretsStayOutOfComposeFile(t *testing.T) {
	for _, db := range []string{"postgres", "redis", "mariadb"} {
		dir := t.TempDir()
		req := deploy.Request{Name: "s", Database: db, Options: map[string]string{"password": "s3cret-pw"}}
		proj, err := compose.Write(req, dir)
		require.NoError(t, err)
		y, err := os.ReadFile(filepath.Join(dir, "compose.yml"))
		require.NoError(t, err)
		require.NotContains(t, string(y), "s3cret-pw", db)
		require.Contains(t, string(y), "secrets.env")
		fi, err := os.Stat(filepath.Join(dir, "secrets.env"))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "%s: the env file is its owner's only", db)
		env, err := os.ReadFile(filepath.Join(dir, "secrets.env"))
		require.NoError(t, err)
		require.Contains(t, string(env), "=s3cret-pw")
		load(t, dir)
		props := proj.Props([]string{"127.0.0.1:40000"})
		joined := strings.Join(slices.Sorted(func(yield func(string) bool) {
			for _, v := range props {
				if !yield(v) {
					return
				}
			}
		}), " ")
		require.Contains(t, joined, "s3cret-pw", "%s: the driver gets the password", db)
		p := load(t, dir)
		require.Contains(t, strings.Join(p.DisabledServices["loader"].Command, " "), "${env:", "%s: the loader resolves the password from its env file", db)
	}
}

func TestRenderErrors(t *testing.T) {
	_, err := compose.Render(deploy.Request{Name: "x", Database: "postgres", Options: map[string]string{"imgae": "p"}})
	require.ErrorContains(t, err, `unknown option "imgae"; valid: image`)
	_, err = compose.Render(deploy.Request{Name: "x", Database: "oracle"})
	require.ErrorContains(t, err, `no image for database "oracle"`)
	p, err := compose.Render(deploy.Request{Name: "x", Database: "postgres", Version: "16"})
	require.NoError(t, err)
	require.Equal(t, "postgres:16", p.File.Services["postgres"].Image, "deploy.version picks the tag")
}

func TestLoaderValidates(t *testing.T) {
	// The check above is worth something only if the loader refuses a
	// file that breaks the specification.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "compose.yml"), []byte("services:\n  a:\n    image: redis:7\n    healthchek: {test: [CMD, true]}\n"), 0o644))
	_, err := loader.LoadWithContext(context.Background(), types.ConfigDetails{WorkingDir: dir,
		ConfigFiles: []types.ConfigFile{{Filename: "compose.yml", Content: []byte("services:\n  a:\n    image: redis:7\n    healthchek: {test: [CMD, true]}\n")}}},
		func(o *loader.Options) { o.SetProjectName("check", true) })
	require.ErrorContains(t, err, "healthchek")
}

// TestScyllaArgsFollowLimits sizes ScyllaDB to its container's caps:
// it reads the host's CPUs and memory, not the cgroup's.
func TestScyllaArgsFollowLimits(t *testing.T) {
	for _, c := range []struct {
		cpus     float64
		mem      int64
		smp, max string
	}{
		{0, 0, "1", "1G"},
		{4, 16 << 30, "4", "14745M"}, // a tenth kept back
		{2.5, 1 << 30, "2", "768M"},  // at least 256 MiB kept back
		{0.5, 256 << 20, "1", "256M"},
	} {
		args := strings.Join(compose.ScyllaArgs(c.cpus, c.mem), " ")
		require.Contains(t, args, "--smp "+c.smp+" --memory "+c.max, "%v CPUs, %d bytes", c.cpus, c.mem)
	}
}

// TestMonitoring: option prometheus adds a Prometheus on the host's
// network scraping dbarena's live endpoint every second, option grafana
// a Grafana provisioned with it and dbarena's dashboard; the files they
// mount are written beside compose.yml; bad combinations are named.
func TestMonitoring(t *testing.T) {
	req := deploy.Request{Name: "m", Database: "redis", Options: map[string]string{
		"prometheus": "9464", "prometheus_image": "local", "prometheus_port": "9091", "grafana": "grafana/grafana:11.3.0"}}
	dir := t.TempDir()
	p, err := compose.Write(req, dir)
	require.NoError(t, err)
	prom := p.File.Services["prometheus"]
	require.NotNil(t, prom)
	require.Equal(t, "host", prom.NetworkMode)
	require.Equal(t, compose.BuiltPrometheusImage, prom.Image)
	require.Contains(t, prom.Command, "--web.listen-address=127.0.0.1:9091")
	conf, err := os.ReadFile(filepath.Join(dir, "prometheus.yml"))
	require.NoError(t, err)
	require.Contains(t, string(conf), `targets: ["127.0.0.1:9464"]`)
	require.Contains(t, string(conf), "scrape_interval: 1s")
	graf := p.File.Services["grafana"]
	require.NotNil(t, graf)
	require.Equal(t, "grafana/grafana:11.3.0", graf.Image)
	require.Equal(t, "3000", graf.Environment["GF_SERVER_HTTP_PORT"])
	ds, err := os.ReadFile(filepath.Join(dir, "grafana", "datasource.yml"))
	require.NoError(t, err)
	require.Contains(t, string(ds), "url: http://127.0.0.1:9091")
	dash, err := os.ReadFile(filepath.Join(dir, "grafana", "dbarena.json"))
	require.NoError(t, err)
	require.Equal(t, deploy.GrafanaDashboard(), dash)
	require.Len(t, p.Exposed, 1, "the monitoring is not a database to watch")
	spec := load(t, dir) // valid Compose, its mounts resolved beside the file
	require.Equal(t, "host", spec.Services["grafana"].NetworkMode)
	require.Equal(t, filepath.Join(dir, "prometheus.yml"), spec.Services["prometheus"].Volumes[0].Source)

	none, err := compose.Render(deploy.Request{Name: "n", Database: "redis"})
	require.NoError(t, err)
	require.NotContains(t, none.File.Services, "prometheus")
	require.Empty(t, none.Files)

	for opts, want := range map[string]map[string]string{
		"need option prometheus": {"grafana": "grafana/grafana"},
		"option prometheus_port": {"prometheus": "9464", "prometheus_port": "x"},
		"option prometheus:":     {"prometheus": "localhost"},
	} {
		_, err := compose.Render(deploy.Request{Name: "e", Database: "redis", Options: want})
		require.ErrorContains(t, err, opts)
	}
}

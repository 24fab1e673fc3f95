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

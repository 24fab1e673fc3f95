package cli

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/results"
)

// The secret tests give each driver credentials that carry marker
// passwords, in every form the driver accepts (URL, key=value, separate
// properties, ${env:...}, key files), run `ycsb load` and `ycsb run`
// in-process, and grep every output for the markers. Cases that the
// database refuses cover the error paths, where client libraries and
// servers echo what they were given.

// secretCase is one way of giving a driver a credential.
type secretCase struct {
	name string
	// props are -p key=value arguments; env is set for the case, for the
	// ${env:...} forms.
	props []string
	env   map[string]string
	// fail is what the error must say when the database (or the driver)
	// refuses the case; "" when load and run must succeed.
	fail string
}

// requireNoLeak runs `ycsb load` and then `ycsb run` of drv for every
// case, with the properties common to all, and requires that no marker
// appears in stdout, stderr (logs, status lines, errors), the JSON
// summaries or the HdrHistogram logs.
func requireNoLeak(t *testing.T, drv string, common []string, markers []string, cases []secretCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			dir := t.TempDir()
			for _, phase := range []string{"load", "run"} {
				args := []string{"ycsb", phase, drv, "-P", workloadA, "-p", "recordcount=50", "-p", "operationcount=200",
					"-threads", "2", "-s", "--json", filepath.Join(dir, phase+".json"), "--hdr-log", filepath.Join(dir, phase+".hlog")}
				if phase == "load" {
					args = append(args, "--drop")
				}
				for _, p := range append(append([]string(nil), common...), c.props...) {
					args = append(args, "-p", p)
				}
				code, out, errs := run(t, context.Background(), args...)
				if c.fail == "" {
					require.Equal(t, ExitOK, code, "%s: %s", phase, errs)
					require.Contains(t, out, "Return=OK", phase)
					require.NotContains(t, out, "Return=ERROR", phase)
					require.FileExists(t, filepath.Join(dir, phase+".json"))
					require.FileExists(t, filepath.Join(dir, phase+".hlog"))
				} else {
					require.NotEqual(t, ExitOK, code, "%s must fail: %s", phase, errs)
					require.Contains(t, errs, c.fail, phase)
					t.Logf("%s: %s", phase, errs)
				}
				requireNoMarker(t, markers, phase+" stdout", out)
				requireNoMarker(t, markers, phase+" stderr", errs)
			}
			requireNoMarkerInDir(t, markers, dir)
		})
	}
}

// requireNoMarker fails when text holds a marker, as written or as an
// encoder would print it (quoted, URL-escaped).
func requireNoMarker(t *testing.T, markers []string, where, text string) {
	t.Helper()
	for _, m := range markers {
		q := strconv.Quote(m)
		for _, form := range []string{m, q[1 : len(q)-1], url.QueryEscape(m), url.PathEscape(m)} {
			require.NotContains(t, text, form, "%s shows a secret", where)
		}
	}
}

// requireNoMarkerInDir greps every file under dir.
func requireNoMarkerInDir(t *testing.T, markers []string, dir string) {
	t.Helper()
	n := 0
	require.NoError(t, filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		requireNoMarker(t, markers, path, string(b))
		return nil
	}))
	t.Logf("%d files of %s checked", n, dir)
}

// keyFile writes a file that a driver takes for a TLS key (or a
// credentials file) and returns its path: its content is a secret, the
// path is not.
func keyFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "client.pem")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// envRef is the ${env:...} reference to the variable name.
func envRef(name string) string { return "${env:" + name + "}" }

// TestSecretsExperiment runs `dbarena run` of a small experiment against
// endpoints that exist: a Redis that checks its password, reached once
// through redis.url and once through redis.password, with its own load
// tool beside each trial (whose command line carries the password).
// Every file of the results directory (manifest, CSV files, HdrHistogram
// logs, report, figures) and both streams must be free of the markers.
// A CQL server that refuses the login and repeats the password it was
// sent is refused by the preflight, before anything starts: its error
// must be free of them too.
func TestSecretsExperiment(t *testing.T) {
	testenv.Addr(t, "DBARENA_TEST_REDIS") // redis-server and redis-benchmark are installed
	const (
		pw     = "Mk7exMarker21"
		benchP = "Mk7exMarker22"
		wrong  = "Mk7exMarker23"
	)
	addr := startRedisWithPassword(t, pw, benchP)
	fake := newCQLAuthServer(t)
	t.Setenv("DBARENA_TEST_SECRET_EX", pw)
	t.Setenv("DBARENA_TEST_SECRET_EXBENCH", benchP)
	t.Setenv("DBARENA_TEST_SECRET_EXWRONG", wrong)
	dir := t.TempDir()
	experimentFile := func(name, refused string) string {
		file := filepath.Join(dir, name+".yaml")
		require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`name: %s
properties: {recordcount: 200, insertorder: ordered, zeropadding: 12}
targets:
  - name: byurl
    database: redis
    deploy: {provider: existing}
    properties:
      redis.url: "redis://bench:${env:DBARENA_TEST_SECRET_EXBENCH}@%s"
  - name: byprop
    database: redis
    deploy: {provider: existing}
    properties:
      redis.addr: %s
      redis.password: "${env:DBARENA_TEST_SECRET_EX}"
%sworkloads: [c]
run: {duration: 1s, threads: 2, reference: true}
`, name, addr, addr, refused)), 0o644))
		return file
	}
	markers := []string{pw, benchP, wrong}
	refusedFile := experimentFile("refused", fmt.Sprintf(`  - name: refused
    database: cassandra
    deploy: {provider: existing}
    properties:
      cql.hosts: %s
      cql.username: bench
      cql.password: "${env:DBARENA_TEST_SECRET_EXWRONG}"
`, fake.addr))
	refusedRes := filepath.Join(dir, "refused-results")
	code, out, errs := run(t, context.Background(), "run", refusedFile, "--results", refusedRes)
	require.Equal(t, ExitFailure, code, "the refused target fails the experiment")
	require.Contains(t, errs, "preflight (nothing was started): target refused (an existing cassandra endpoint)")
	require.Contains(t, errs, "refused the login")
	require.Contains(t, fake.passwords(), wrong, "the stand-in server was sent the password")
	require.NoDirExists(t, refusedRes, "nothing started")
	requireNoMarker(t, markers, "stdout of the refused run", out)
	requireNoMarker(t, markers, "stderr of the refused run", errs)

	res := filepath.Join(dir, "r")
	code, out, errs = run(t, context.Background(), "run", experimentFile("secret-leak", ""), "--results", res)
	t.Log(errs)
	require.Equal(t, ExitOK, code, errs)
	d, err := results.Read(res)
	require.NoError(t, err)
	require.Equal(t, results.StatusCompleted, d.Manifest.Status)
	require.Equal(t, "redis://bench:REDACTED@"+addr, d.Manifest.Targets[0].Properties["redis.url"])
	require.Equal(t, "REDACTED", d.Manifest.Targets[1].Properties["redis.password"])
	said := 0
	for _, tr := range d.Trials {
		require.Equal(t, results.StatusCompleted, tr.Status, tr.ID)
		require.Positive(t, tr.Operations, tr.ID)
		require.Empty(t, tr.Reference.Tool, "%s: redis-benchmark is handed no secret, so it does not run", tr.ID)
		if strings.Contains(tr.Reference.Note, "takes a password only on its command line") {
			said++
		}
	}
	require.Equal(t, 2, said, "both read trials say why they have no reference")
	for _, f := range []string{results.ManifestFile, results.TrialsFile, results.TimeseriesFile, results.ReportFile} {
		require.FileExists(t, filepath.Join(res, f))
	}
	for _, pattern := range []string{"figures/*.svg", "hdr/*.hlog"} {
		m, err := filepath.Glob(filepath.Join(res, pattern))
		require.NoError(t, err)
		require.NotEmpty(t, m, pattern)
	}
	requireNoMarker(t, markers, "stdout", out)
	requireNoMarker(t, markers, "stderr", errs)
	requireNoMarkerInDir(t, markers, res)
}

package cli

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
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

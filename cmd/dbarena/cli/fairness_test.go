package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/results"
)

// TestHostSaturatedOnOneMachine runs PostgreSQL and the load generator
// on this 2-core machine with far more workers than cores: the machine's
// CPU is the limit, and the trial says so in a host-saturated flag and
// the verdict marks the comparison and says how little one repetition
// tells.
func TestHostSaturatedOnOneMachine(t *testing.T) {
	// The test servers being up says PostgreSQL is installed; the local
	// provider starts its own.
	testenv.Addr(t, "DBARENA_TEST_POSTGRES")
	dir := t.TempDir()
	file := filepath.Join(dir, "busy.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: busy
properties: {recordcount: 2000}
targets:
  - name: pg
    database: postgres
    deploy: {provider: local}
  - name: redis
    database: redis
    deploy: {provider: local}
workloads: [c]
run: {duration: 5s, threads: 48}
`), 0o644))
	res := filepath.Join(dir, "r")
	code, out, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitOK, code, errs)
	d, err := results.Read(res)
	require.NoError(t, err)
	c := rowsByID(d)["pg.c"]
	require.True(t, results.HasFlag(c.Flags, results.FlagHostSaturated), "flags: %q", c.Flags)
	var text string
	for _, f := range c.Flags {
		if f.Kind() == results.FlagHostSaturated {
			text = string(f)
		}
	}
	require.Contains(t, text, "the load generator and the database")
	// The verdict marks the ratio, cautions in its head and names the
	// trials once.
	require.Contains(t, out, "caution: 1 of 1 comparisons involves trials with a fairness warning (marked *)")
	require.Regexp(t, `c: \w+ [\d,]+ ops/s, [\d.]+x\* `, out)
	require.Contains(t, out, "warning: host-saturated on 2 trials (")
	require.Contains(t, out, "1 repetition each: no confidence intervals")
}

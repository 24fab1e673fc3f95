package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
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
run: {duration: 6s, threads: 64}
`), 0o644))
	res := filepath.Join(dir, "r")
	code, out, errs := run(t, context.Background(), "run", file, "--results", res)
	require.Equal(t, ExitOK, code, errs)
	d, err := results.Read(res)
	require.NoError(t, err)
	// Both trials run the machine hard; PostgreSQL's always reaches
	// 90% here, Redis's (one server thread) most of the time.
	var flagged []results.Trial
	var cpu []string
	for _, id := range []string{"pg.c", "redis.c"} {
		c := rowsByID(d)[id]
		if results.HasFlag(c.Flags, results.FlagHostSaturated) {
			flagged = append(flagged, c)
		}
		var machine []string
		for _, x := range d.Sys {
			if x.Role == "machine" && !x.Time.Before(c.Start) && !x.Time.After(c.End) {
				machine = append(machine, fmt.Sprintf("%.0f%%", x.CPUPercent))
			}
		}
		cpu = append(cpu, fmt.Sprintf("%s %q: machine %v", id, c.Flags, machine))
	}
	require.NotEmpty(t, flagged, "no trial flagged: %v", cpu)
	var text string
	for _, f := range flagged[0].Flags {
		if f.Kind() == results.FlagHostSaturated {
			text = string(f)
		}
	}
	// It says what each part took of the machine: both parts ran here,
	// on shared cores.
	require.Regexp(t, `\(the load generator \d+%, the database \d+%, other processes \d+%\)`, text)
	// The verdict marks the ratio (or the tie, when both ran the machine
	// to the same limit), cautions in its head and names the warning.
	require.Contains(t, out, "caution: 1 of 1 comparisons involves trials with a fairness warning (marked *)")
	require.Regexp(t, `c: \w+ [\d,]+ ops/s, ([\d.]+x|tied)\* `, out)
	require.Contains(t, out, "host-saturated")
	require.Contains(t, out, "1 repetition each: no confidence intervals")
}

// TestNotSteadyOnASlowingServer pauses a real Redis for a growing share
// of each quarter second (CLIENT PAUSE), so that the measured throughput
// falls across the trial: the trend test flags it not-steady, and the
// experiment measures it again. The pauses stop once the first try's
// row is written, so the retry meets a server at full speed: it counts,
// and the first try stays on record, superseded. (Whether the retry's
// own window is steady is the machine's: on CI, beside other packages'
// tests, one fell by 35%; it then keeps its flag.)
func TestNotSteadyOnASlowingServer(t *testing.T) {
	srv := startOwnRedis(t)
	client := goredis.NewClient(&goredis.Options{Addr: srv.addr})
	defer client.Close()
	dir := t.TempDir()
	file := redisExperiment(t, dir, "slowing", srv.addr, "{duration: 8s, threads: 2, warmup: 1s}")
	res := filepath.Join(dir, "r")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go slowUntilRow(ctx, client, res, "r.c")
	code, _, errs := run(t, context.Background(), "run", file, "--results", res)
	cancel()
	require.Equal(t, ExitOK, code, errs)
	// Measured again: for its window that moved, or first for the
	// cores the hypervisor stole meanwhile when it did (flagged too).
	require.Contains(t, errs, ": measuring it again in the next round as r.c.retry")
	d, err := results.Read(res)
	require.NoError(t, err)
	rows := rowsByID(d)
	first := rows["r.c"]
	require.True(t, results.HasFlag(first.Flags, results.FlagNotSteady), "flags: %q", first.Flags)
	require.Equal(t, results.StatusSuperseded, first.Status)
	require.Contains(t, first.StatusReason, "measured again as r.c.retry")
	retry := counted(t, rows, "r.c")
	t.Logf("the retry that counts, %s: flags %q", retry.ID, retry.Flags)
	require.Equal(t, first.Repetition, retry.Repetition)
	require.Greater(t, retry.Throughput, 2*first.Throughput, "the retry ran at full speed")
}

// counted is the row of step id that counts: the first of id,
// id.retry, id.retry2 that was not superseded, each superseded one
// naming the next.
func counted(t *testing.T, rows map[string]results.Trial, id string) results.Trial {
	t.Helper()
	for _, cur := range []string{id, results.AgainID(id, 1), results.AgainID(id, 2)} {
		row, ok := rows[cur]
		require.True(t, ok, "%s ran", cur)
		if row.Status != results.StatusSuperseded {
			require.Equal(t, results.StatusCompleted, row.Status, cur)
			return row
		}
	}
	t.Fatalf("%s: every measurement superseded", id)
	return results.Trial{}
}

// slowUntilRow pauses a Redis server for a growing share of every
// quarter second, to 90% of it after 9 s, so that the throughput falls
// smoothly to a tenth of its start, until the trials file of results
// dir res holds the row id.
func slowUntilRow(ctx context.Context, client *goredis.Client, res, id string) {
	start := time.Now()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if b, _ := os.ReadFile(filepath.Join(res, results.TrialsFile)); strings.Contains(string(b), "\n"+id+",") {
			_ = client.Do(ctx, "CLIENT", "UNPAUSE").Err()
			return
		}
		paused := min(time.Since(start).Seconds()/10, 0.9) * 250
		_ = client.Do(ctx, "CLIENT", "PAUSE", int(paused)).Err()
	}
}

// TestNotSteadyWithInsertsLoadsAgain: a trial that inserts (workload D)
// and whose window moved is measured again on its data loaded again, not
// on what its first try left: the load again drops the loaded records
// and the first try's inserts, and after the retry the server holds the
// loaded records and the retry's inserts.
func TestNotSteadyWithInsertsLoadsAgain(t *testing.T) {
	srv := startOwnRedis(t)
	client := goredis.NewClient(&goredis.Options{Addr: srv.addr})
	defer client.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "inserts.yaml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`name: inserts
properties: {recordcount: 200}
targets:
  - name: r
    database: redis
    deploy: {provider: existing}
    properties: {redis.addr: %q}
workloads: [d]
run: {duration: 8s, threads: 2}
`, srv.addr)), 0o644))
	res := filepath.Join(dir, "r")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go slowUntilRow(ctx, client, res, "r.d")
	code, _, errs := run(t, context.Background(), "run", file, "--results", res)
	cancel()
	require.Equal(t, ExitOK, code, errs)
	// The pauses move its window (not-steady); on a machine whose
	// hypervisor steals a share of the cores meanwhile (CI saw 26-34%)
	// the reason said first is that one (interfered): either way the
	// trial is measured again, on its data loaded again.
	require.Contains(t, errs, ": measuring it again in the next round as r.d.retry")
	require.Contains(t, errs, "r.d.retry: its data is not as loaded (a trial measured again changed it): loading it again as r.load.1.retry")
	d, err := results.Read(res)
	require.NoError(t, err)
	rows := rowsByID(d)
	first, reload := rows["r.d"], rows["r.load.1.retry"]
	require.Equal(t, results.StatusSuperseded, first.Status)
	require.True(t, results.HasFlag(first.Flags, results.FlagNotSteady), "the pauses moved its window: %q", first.Flags)
	require.Equal(t, results.StatusCompleted, reload.Status)
	require.Equal(t, results.KindLoad, reload.Kind)
	require.EqualValues(t, 200, reload.Operations)
	retry := counted(t, rows, "r.d")
	inserts := func(tr results.Trial) int64 {
		for _, op := range tr.Ops {
			if op.Name == "INSERT" {
				return op.Operations - op.Errors
			}
		}
		return 0
	}
	require.Positive(t, inserts(first), "the first try inserted")
	require.Contains(t, errs, fmt.Sprintf("dropped indexed records (records %d,", 200+inserts(first)),
		"the load again dropped what the first try left")
	n, err := client.ZCard(context.Background(), "_indices").Result()
	require.NoError(t, err)
	require.Equal(t, 200+inserts(retry), n, "the loaded records and the retry's inserts, none of the first try's (%d)", inserts(first))
}

// TestHostSaturatedWithLoaderProcesses: a trial run by loader processes
// on this machine (run.loaders) is judged for host saturation too, from
// this machine's CPU, which the loaders and the database share: two
// loaders of 32 workers each against a local PostgreSQL saturate it.
func TestHostSaturatedWithLoaderProcesses(t *testing.T) {
	testenv.Addr(t, "DBARENA_TEST_POSTGRES")
	dir := t.TempDir()
	file := filepath.Join(dir, "busy.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: busyloaders
properties: {recordcount: 2000}
targets:
  - name: pg
    database: postgres
    deploy: {provider: local}
workloads: [c]
run: {duration: 6s, threads: 32, loaders: 2}
`), 0o644))
	res := filepath.Join(dir, "r")
	code, out, errs := run(t, context.Background(), "run", file, "--results", res, "--loader-binary", buildDbarena(t))
	require.Equal(t, ExitOK, code, "%s\n%s", out, errs)
	d, err := results.Read(res)
	require.NoError(t, err)
	row := rowsByID(d)["pg.c"]
	var text string
	for _, f := range row.Flags {
		if f.Kind() == results.FlagHostSaturated {
			text = string(f)
		}
	}
	require.NotEmpty(t, text, "flags %v", row.Flags)
	// The loaders' CPU is the load generator's: it is not "other
	// processes". This process only waits for them (a few percent); 64
	// workers in two loaders took 48% and more. (Not compared with
	// "other processes": the test packages running beside this one took
	// as much, 48% against 48% in one CI run.)
	m := regexp.MustCompile(`the load generator (\d+)%, the database (\d+)%, other processes (\d+)%`).FindStringSubmatch(text)
	require.NotNil(t, m, text)
	loadgen, _ := strconv.Atoi(m[1])
	require.GreaterOrEqual(t, loadgen, 20, text)
}

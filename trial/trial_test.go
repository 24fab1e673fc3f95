package trial

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/redact"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/runner"
)

func props(kv ...string) *properties.Set {
	p := properties.New()
	for i := 0; i+1 < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], properties.Source{File: "test"})
	}
	return p
}

// TestParseSettings checks the trial's own settings and their defaults
// beside the runner's.
func TestParseSettings(t *testing.T) {
	pl, err := Parse("memory", props("threadcount", "3", "seed", "42", "drop", "true", "verify", "true",
		"schema.create", "false", "hdr.log", "x.hlog", "status.interval", "2s", "recordcount", "10"), runner.Load, nil)
	require.NoError(t, err)
	s := pl.Settings
	require.Equal(t, 3, s.Run.Threads)
	require.Equal(t, uint64(42), s.Run.Seed)
	require.True(t, s.SeedGiven)
	require.True(t, s.Drop)
	require.True(t, s.Verify)
	require.False(t, s.CreateSchema)
	require.Equal(t, "x.hlog", s.HdrLog)
	require.Equal(t, "2s", s.StatusInterval.String())

	pl, err = Parse("memory", props("operationcount", "10", "recordcount", "10"), runner.Transactions, nil)
	require.NoError(t, err)
	require.True(t, pl.Settings.CreateSchema, "the table is created by default")
	require.False(t, pl.Settings.SeedGiven, "a seed is drawn when none is given")
	require.Equal(t, DefaultStatusInterval, pl.Settings.StatusInterval)

	// Written and parsed again, the settings come back (the outputs
	// stay the caller's, SeedGiven says the seed came in the file).
	back := props("recordcount", "10", "seed", "7", "drop", "false", "verify", "false", "schema.create", "true", "status.interval", "9s")
	s.Write(back, properties.Source{File: "settled"})
	pl, err = Parse("memory", back, runner.Load, nil)
	require.NoError(t, err)
	want := s
	want.HdrLog = ""
	require.Equal(t, want, pl.Settings)

	for name, p := range map[string]*properties.Set{
		"seed":            props("seed", "-1", "operationcount", "1"),
		"status.interval": props("status.interval", "0s", "operationcount", "1"),
		"drop":            props("drop", "maybe", "operationcount", "1"),
		"threadcount":     props("threadcount", "0"),
	} {
		_, err := Parse("memory", p, runner.Transactions, nil)
		require.ErrorContains(t, err, name)
	}
	_, err = Parse("memory", props("operationcount", "10"), runner.Transactions, nil)
	require.ErrorContains(t, err, "recordcount=0 (the default)", "no records: the cause, not the key chooser's bounds")
	_, err = Parse("nosuch", props(), runner.Load, nil)
	require.ErrorContains(t, err, "valid drivers are")
}

// TestResolveSecrets checks that a reference is replaced by its value,
// the value is learned as a secret and the reference is kept as written.
func TestResolveSecrets(t *testing.T) {
	t.Setenv("DBARENA_TRIAL_TEST_PW", "s3cret-value")
	p := props("postgres.url", "postgres://u:${env:DBARENA_TRIAL_TEST_PW}@h/db", "other", "plain")
	hide := redact.New()
	refs, err := ResolveSecrets(p, hide)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"postgres.url": "postgres://u:${env:DBARENA_TRIAL_TEST_PW}@h/db"}, refs)
	v, _, _ := p.Lookup("postgres.url")
	require.Equal(t, "postgres://u:s3cret-value@h/db", v)
	require.NotContains(t, hide.String("it was s3cret-value"), "s3cret-value")

	_, err = ResolveSecrets(props("k", "${env:DBARENA_TRIAL_TEST_UNSET}"), redact.New())
	require.ErrorContains(t, err, "property k")
}

// TestReady checks the table's life against a real PostgreSQL: a run
// refuses a missing table, a load creates it (or with
// schema.create=false refuses it missing), and the run then finds it.
func TestReady(t *testing.T) {
	url := testenv.Addr(t, "DBARENA_TEST_POSTGRES")
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	table := fmt.Sprintf("trial_ready_%d", time.Now().UnixNano())
	open := func(phase runner.Phase, kv ...string) *Trial {
		pl, err := Parse("postgres", props(append([]string{"postgres.url", url, "table", table, "recordcount", "10",
			"operationcount", "10"}, kv...)...), phase, nil)
		require.NoError(t, err)
		tr, err := pl.Open(ctx, log)
		require.NoError(t, err)
		t.Cleanup(tr.Close)
		return tr
	}
	require.ErrorContains(t, open(runner.Transactions).Ready(ctx, false, log), "postgres: ")
	require.ErrorContains(t, open(runner.Load, "schema.create", "false").Ready(ctx, true, log), "schema.create=false")
	require.NoError(t, open(runner.Load).Ready(ctx, true, log))
	require.NoError(t, open(runner.Transactions).Ready(ctx, false, log), "the table a load made is there for the run")
	require.NoError(t, open(runner.Load, "drop", "true").Ready(ctx, true, log), "dropped and made again")
	t.Cleanup(func() {
		if sm, ok := open(runner.Load).DB.(driver.SchemaManager); ok {
			_ = sm.DropSchema(ctx, open(runner.Load).Schema())
		}
	})
}

package spec_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/experiment/spec"
)

// plan parses lines as "testdata/plan.yaml" (so workload files resolve
// in testdata) and expands it.
func plan(t *testing.T, lines ...string) *spec.Plan {
	t.Helper()
	s, err := spec.Parse("testdata/plan.yaml", yamlText(lines...), testOptions())
	require.NoError(t, err)
	p, err := spec.NewPlan(s)
	require.NoError(t, err)
	return p
}

func TestLoadSteps(t *testing.T) {
	tests := map[string]struct {
		lines []string
		want  []string
	}{
		"A to D share one load, E reloads after D inserted": {
			lines: []string{"workloads: [a, b, c, f, d, e]"},
			want:  []string{"pg.load.1", "pg.a", "pg.b", "pg.c", "pg.f", "pg.d", "pg.load.2", "pg.e"},
		},
		"a change of data reloads, and so does the change back": {
			lines: []string{"workloads:", "  - a", "  - {name: wide, builtin: a, properties: {fieldcount: 20}}", "  - b"},
			want:  []string{"pg.load.1", "pg.a", "pg.load.2", "pg.wide", "pg.load.3", "pg.b"},
		},
		"a change of run-time properties keeps the data": {
			lines: []string{"workloads:", "  - a", "  - {name: a-uniform, builtin: a, properties: {requestdistribution: uniform, readproportion: 0.9, updateproportion: 0.1}}"},
			want:  []string{"pg.load.1", "pg.a", "pg.a-uniform"},
		},
		"a property file with its own recordcount reloads": {
			lines: []string{"workloads:", "  - a", "  - {name: custom, file: custom.properties}"},
			want:  []string{"pg.load.1", "pg.a", "pg.load.2", "pg.custom"},
		},
		"experiment properties override the bases, so they share the data": {
			lines: []string{"properties: {recordcount: 800}", "workloads:", "  - a", "  - {name: custom, file: custom.properties}"},
			want:  []string{"pg.load.1", "pg.a", "pg.custom"},
		},
		"run-time axes share one load": {
			lines: []string{"workloads: [a]", "matrix:", "  threads: [1, 2]", "  requestdistribution: [uniform, zipfian]"},
			want: []string{"pg.load.1", "pg.a.threads=1.requestdistribution=uniform", "pg.a.threads=1.requestdistribution=zipfian",
				"pg.a.threads=2.requestdistribution=uniform", "pg.a.threads=2.requestdistribution=zipfian"},
		},
		"a load-relevant axis loads each point": {
			lines: []string{"workloads: [a]", "matrix:", "  recordcount: [100, 200]", "  threads: [1, 2]"},
			want: []string{"pg.load.1", "pg.a.recordcount=100.threads=1", "pg.a.recordcount=100.threads=2",
				"pg.load.2", "pg.a.recordcount=200.threads=1", "pg.a.recordcount=200.threads=2"},
		},
		"a driver property axis loads each point": {
			lines: []string{"workloads: [a]", "matrix:", "  postgres.dialect: [postgres, cockroachdb]"},
			want:  []string{"pg.load.1", "pg.a.postgres.dialect=postgres", "pg.load.2", "pg.a.postgres.dialect=cockroachdb"},
		},
		"a run after inserts or deletes gets a fresh load, per repetition too": {
			lines: []string{"workloads: [d, c]", "run: {repetitions: 2, order: sequential}"},
			want:  []string{"pg.load.1", "pg.d.rep1", "pg.load.2", "pg.d.rep2", "pg.load.3", "pg.c.rep1", "pg.c.rep2"},
		},
		"in rounds too": {
			lines: []string{"workloads: [d, c]", "run: {repetitions: 2}"},
			want:  []string{"pg.load.1", "pg.c.rep1", "pg.d.rep1", "pg.load.2", "pg.d.rep2", "pg.load.3", "pg.c.rep2"},
		},
		"load disabled": {
			lines: []string{"workloads: [a, b]", "load: {enabled: false}"},
			want:  []string{"pg.a", "pg.b"},
		},
		"repetitions follow their point's load": {
			lines: []string{"workloads: [a]", "run: {repetitions: 2, order: sequential}", "matrix: {recordcount: [100, 200]}"},
			want: []string{"pg.load.1", "pg.a.recordcount=100.rep1", "pg.a.recordcount=100.rep2",
				"pg.load.2", "pg.a.recordcount=200.rep1", "pg.a.recordcount=200.rep2"},
		},
		"in rounds each round loads each point's data": {
			lines: []string{"workloads: [a]", "run: {repetitions: 2}", "matrix: {recordcount: [100, 200]}"},
			want: []string{"pg.load.1", "pg.a.recordcount=100.rep1", "pg.load.2", "pg.a.recordcount=200.rep1",
				"pg.load.3", "pg.a.recordcount=100.rep2", "pg.load.4", "pg.a.recordcount=200.rep2"},
		},
		"values are made safe in file names": {
			lines: []string{"workloads: [a]", "matrix: {postgres.url: [\"postgres://h:5432/db\"]}"},
			want:  []string{"pg.load.1", "pg.a.postgres.url=postgres___h_5432_db"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			lines := append([]string{"name: plan", "targets: [{name: pg, database: postgres}]"}, tc.lines...)
			p := plan(t, lines...)
			require.Equal(t, tc.want, ids(p))
			for i, st := range p.Steps {
				require.Equal(t, i, st.Index)
				require.Equal(t, strings.Contains(st.ID, ".load."), st.Kind == spec.Load, st.ID)
				require.Same(t, &p.Spec.Targets[0], st.Target)
				require.NotNil(t, st.Workload)
			}
		})
	}
}

func TestExpansion(t *testing.T) {
	p := plan(t,
		"name: expand",
		"targets:",
		"  - database: postgres",
		"  - database: cassandra",
		"workloads: [a, c]",
		"run: {repetitions: 3, threads: 2, target: 500, duration: 30s, warmup: 5s, order: sequential}",
		"matrix:",
		"  threads: [4, 16]",
		"  target: [0, 1000]",
	)
	// 2 targets x 2 workloads x 4 points x 3 repetitions, and one load per target.
	require.Len(t, p.Steps, 2*2*4*3+2)
	require.Equal(t, 48, p.RunCount())
	require.Equal(t, 2, p.LoadCount())

	first := p.Steps[1]
	require.Equal(t, "postgres.a.threads=4.target=0.rep1", first.ID)
	require.Equal(t, spec.Run, first.Kind)
	require.Equal(t, []spec.KV{{Key: "threads", Value: "4", Line: 8}, {Key: "target", Value: "0", Line: 9}}, first.Params)
	require.Equal(t, 4, first.Threads, "the matrix's threads override run.threads")
	require.Zero(t, first.Rate, "the matrix's target 0 overrides run.target")
	require.Equal(t, 30*time.Second, first.Duration)
	require.Equal(t, 5*time.Second, first.Warmup)
	require.Equal(t, 1, first.Repetition)
	require.Equal(t, "postgres.a.threads=4.target=0.rep3", p.Steps[3].ID)
	require.Equal(t, 3, p.Steps[3].Repetition)
	last := p.Steps[len(p.Steps)-1]
	require.Equal(t, "cassandra.c.threads=16.target=1000.rep3", last.ID)
	require.Equal(t, 16, last.Threads)
	require.Equal(t, 1000.0, last.Rate)
	require.Equal(t, "cassandra", last.Target.Name)
	require.Equal(t, "c", last.Workload.Name)

	load := p.Steps[0]
	require.Equal(t, "postgres.load.1", load.ID)
	require.Equal(t, 4, load.Threads, "loads use the load section")
	require.Zero(t, load.Rate)
	require.Equal(t, int64(1000), load.Operations, "a load's operations are its records (built-in a has 1000)")
}

// source returns a property's value and where it came from.
func source(t *testing.T, st spec.Step, key string) (string, string) {
	t.Helper()
	v, src, ok := st.Properties.Lookup(key)
	require.True(t, ok, key)
	return v, src.String()
}

func TestPrecedence(t *testing.T) {
	p := plan(t,
		"name: prec", // 1
		"properties:",
		"  recordcount: 5000", // 3: experiment > built-in
		"  fieldcount: 5",     // 4
		"  fieldlength: 10",   // 5
		"targets:",
		"  - name: pg",
		"    database: postgres",
		"    properties:",
		"      fieldlength: 30",                  // 10: target > workload
		"      requestdistribution: exponential", // 11
		"      postgres.dialect: postgres",       // 12
		"workloads:",
		"  - name: w", // 14
		"    builtin: a",
		"    properties:",
		"      fieldcount: 6",                // 17: workload > experiment
		"      fieldlength: 20",              // 18
		"      requestdistribution: uniform", // 19
		"run:",
		"  threads: 3",   // 21
		"  warmup: 2s",   // 22
		"  duration: 10", // 23
		"matrix:",
		"  requestdistribution: [hotspot]", // 25: matrix > target
		"  target: [50]",                   // 26
	)
	require.Equal(t, []string{"pg.load.1", "pg.w.requestdistribution=hotspot.target=50"}, ids(p))
	load, run := p.Steps[0], p.Steps[1]
	const f = "testdata/plan.yaml"
	tests := map[string]struct {
		step      spec.Step
		key       string
		value     string
		source    string // exact, or a prefix when it ends in ':'
		sourceFor string
	}{
		"built-in only":       {step: run, key: "readproportion", value: "0.5", source: "workloads/workloada:"},
		"experiment>built-in": {step: run, key: "recordcount", value: "5000", source: f + ":3"},
		"workload>experiment": {step: run, key: "fieldcount", value: "6", source: f + ":17"},
		"target>workload":     {step: run, key: "fieldlength", value: "30", source: f + ":10"},
		"matrix>target":       {step: run, key: "requestdistribution", value: "hotspot", source: f + ":25"},
		"driver property":     {step: run, key: "postgres.dialect", value: "postgres", source: f + ":12"},
		"no operation count":  {step: run, key: "operationcount", value: "0", source: f + ":23"},
		"load phase":          {step: load, key: "dotransactions", value: "false", source: f + " (load step)"},
		"load data":           {step: load, key: "fieldlength", value: "30", source: f + ":10"},
	}
	// The run's settings are the step's, typed, and no property: one
	// value from the file to the worker.
	require.Equal(t, 3, run.Threads)
	require.Equal(t, 50.0, run.Rate, "the matrix's target over run.target")
	require.Equal(t, 10*time.Second, run.Duration)
	require.Equal(t, 2*time.Second, run.Warmup)
	require.Equal(t, 4, load.Threads)
	for _, st := range []spec.Step{load, run} {
		for _, k := range []string{"threadcount", "target", "maxexecutiontime", "warmup.time", "batchsize", "drop", "verify"} {
			_, _, ok := st.Properties.Lookup(k)
			require.False(t, ok, "%s: property %s", st.ID, k)
		}
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			v, src := source(t, tc.step, tc.key)
			require.Equal(t, tc.value, v)
			if strings.HasSuffix(tc.source, ":") {
				require.True(t, strings.HasPrefix(src, tc.source), "source %q, want prefix %q", src, tc.source)
				return
			}
			require.Equal(t, tc.source, src)
		})
	}
}

func TestOperationRun(t *testing.T) {
	p := plan(t, "name: ops", "targets: [{database: redis}]", "workloads: [c]", "run:", "  operations: 2500")
	run := p.Steps[1]
	require.Equal(t, int64(2500), run.Operations)
	require.Zero(t, run.Duration)
	v, src := source(t, run, "operationcount")
	require.Equal(t, "2500", v, "the run's count replaces the built-in's operationcount=1000")
	require.Equal(t, "testdata/plan.yaml:5", src)
}

// TestTrialErrors checks that a value only wrong in combination is
// reported with its own line, the step and the workload's line, once.
func TestTrialErrors(t *testing.T) {
	_, err := spec.Parse("t.yaml", yamlText(
		"name: t",
		"targets: [{database: postgres}, {database: cassandra}]",
		"workloads:",
		"  - a",
		"  - name: mine",
		"    builtin: b",
		"    properties: {fieldlength: 0}",
		"matrix:",
		"  requestdistribution: [uniform, gaussian]",
	), testOptions())
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Equal(t, []string{
		`t.yaml:9: property "requestdistribution": unknown distribution "gaussian": want one of uniform, zipfian, hotspot, latest, sequential, exponential (step postgres.a.requestdistribution=gaussian; workload a at t.yaml:4)`,
		`t.yaml:7: property "fieldlength": 0: want at least 1 (step postgres.mine.requestdistribution=uniform; workload mine at t.yaml:5)`,
	}, lines, "each distinct problem once, though 2 targets x 2 points hit it")
}

func TestIDCollision(t *testing.T) {
	_, err := spec.Parse("c.yaml", yamlText(
		"name: c",
		"targets: [{database: postgres}]",
		"workloads: [a]",
		"matrix:",
		`  postgres.url: ["a/b", "a:b"]`,
	), testOptions())
	require.ErrorContains(t, err, `c.yaml:5: matrix: steps 1 and 3 would share the ID "postgres.a.postgres.url=a_b"`)
}

// TestWarnings checks unknown properties are kept, once, with their line
// and the nearest known property.
func TestWarnings(t *testing.T) {
	p := plan(t,
		"name: w",
		"properties: {cql.hosts: h}",
		"targets: [{database: postgres}, {database: cassandra}]",
		"workloads: [{name: t, file: typo.properties}, b]",
	)
	require.Len(t, p.Warnings, 1, "driver properties do not warn; each unknown one of a property file warns once")
	require.Equal(t, `testdata/typo.properties:4: unknown property "recordcont" is ignored (did you mean "recordcount"?)`, p.Warnings[0].String())

	_, err := spec.Parse("testdata/plan.yaml", yamlText("name: w", "properties: {recordcont: 100}",
		"targets: [{database: postgres}]", "workloads: [a]"), testOptions())
	require.ErrorContains(t, err, `testdata/plan.yaml:2:14: properties.recordcont: unknown property "recordcont"`,
		"in the experiment file itself an unknown property is an error")
	require.ErrorContains(t, err, `did you mean "recordcount"?`)
}

func TestNewPlanNeedsTargets(t *testing.T) {
	_, err := spec.NewPlan(&spec.Spec{File: "x.yaml"})
	require.ErrorContains(t, err, "x.yaml: an experiment needs at least one target and one workload")
}

// TestNewPlanHandBuilt checks a Spec built in code (no lines, no cached
// bases) plans, with sources saying where defaults came from.
func TestNewPlanHandBuilt(t *testing.T) {
	s := &spec.Spec{Name: "code", File: "code", Targets: []spec.Target{{Name: "m", Database: "memory", Driver: "memory"}},
		Workloads: []spec.Workload{{Name: "c", Builtin: "c"}},
		Load:      spec.LoadSettings{Enabled: true, Threads: 1, BatchSize: 1},
		Run:       spec.RunSettings{Duration: time.Second, Threads: 1, Repetitions: 1}}
	p, err := spec.NewPlan(s)
	require.NoError(t, err)
	require.Equal(t, []string{"m.load.1", "m.c"}, ids(p))
	_, src := source(t, p.Steps[1], "operationcount")
	require.Equal(t, "code (default run.duration)", src)
}

func TestStepKindString(t *testing.T) {
	require.Equal(t, "load", spec.Load.String())
	require.Equal(t, "run", spec.Run.String())
	require.Equal(t, "StepKind(0)", spec.StepKind(0).String())
}

func TestWriteSummary(t *testing.T) {
	tests := map[string]struct {
		lines []string
		want  string
	}{
		"timed runs only": {
			lines: []string{"workloads: [a]", "load: {enabled: false}", "run: {duration: 1m, warmup: 30s, repetitions: 2}"},
			want:  "2 steps (0 loads, 2 runs) on 1 target and 1 workload; estimated time: 3m\norder: 2 rounds, each visiting every target and workload once in an order drawn from the seed chosen at run time\n",
		},
		"repetitions: auto says its budget": {
			lines: []string{"workloads: [a]", "load: {enabled: false}", "run: {duration: 1m, repetitions: auto, budget: 12m}"},
			want:  "3 steps (0 loads, 3 runs) on 1 target and 1 workload; estimated time: 3m\nrepetitions: auto: the 3 rounds above, in orders drawn from the seed chosen at run time, then a round at a time until every workload's comparison is decided, while another fits the budget of 12m from the start (the run takes at most about 12m, and trials measured again after it)\n",
		},
		"a budget the first rounds spend adds none": {
			lines: []string{"workloads: [a]", "load: {enabled: false}", "run: {duration: 1m, repetitions: auto, budget: 3m}"},
			want:  "3 steps (0 loads, 3 runs) on 1 target and 1 workload; estimated time: 3m\nrepetitions: auto: the 3 rounds above, in orders drawn from the seed chosen at run time; they take at least 3m, the budget of 3m from the start: no round is added (run.budget above 3m lets rounds be added until every workload is decided)\n",
		},
		"a budget just past the first rounds adds rounds": {
			lines: []string{"workloads: [a]", "load: {enabled: false}", "run: {duration: 1m, repetitions: auto, budget: 3m1s}"},
			want:  "3 steps (0 loads, 3 runs) on 1 target and 1 workload; estimated time: 3m\nrepetitions: auto: the 3 rounds above, in orders drawn from the seed chosen at run time, then a round at a time until every workload's comparison is decided, while another fits the budget of 3m1s from the start (the run takes at most about 3m1s, and trials measured again after it)\n",
		},
		"operation-count runs": {
			lines: []string{"workloads: [a, b]", "run: {operations: 10}"},
			want:  "3 steps (1 load, 2 runs) on 1 target and 2 workloads; estimated time: unknown (plus 1 load and 2 operation-count runs of unknown length)\n",
		},
		"hours": {
			lines: []string{"workloads: [a]", "load: {enabled: false}", "run: {duration: 2h}"},
			want:  "1 step (0 loads, 1 run) on 1 target and 1 workload; estimated time: 2h\n",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := plan(t, append([]string{"name: s", "targets: [{database: postgres}]"}, tc.lines...)...)
			var b strings.Builder
			require.NoError(t, p.Write(&b))
			out := b.String()
			require.True(t, strings.HasSuffix(out, tc.want), "got:\n%s", out)
		})
	}
}

// failWriter fails after n bytes, to check Write reports it.
type failWriter struct{ n int }

func (f *failWriter) Write(b []byte) (int, error) {
	if f.n -= len(b); f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(b), nil
}

func TestWriteError(t *testing.T) {
	p := plan(t, "name: e", "targets: [{database: postgres}]", "workloads: [a]")
	for _, n := range []int{0, 200} {
		err := p.Write(&failWriter{n: n})
		require.ErrorContains(t, err, "write plan: disk full")
	}
}

// TestKindSettingsReachTheirKindOnly: TPC-C's and the ledger's own
// settings, set at the top of the experiment or on a target, reach the
// workloads of their kind only: tpcc.warehouses beside a ledger made
// its step TPC-C and refused it ("readproportion 0.1 with
// tpcc.warehouses 1"), and would make workload A TPC-C.
func TestKindSettingsReachTheirKindOnly(t *testing.T) {
	p := plan(t,
		"name: kinds",
		"properties: {tpcc.warehouses: 2, ledger.balance: 500, recordcount: 100}",
		"targets:",
		"  - {name: pg, database: postgres, properties: {tpcc.mode: unpaced, ledger.floor: 10}}",
		"workloads: [tpcc, ledger, a]",
	)
	for _, st := range p.Steps {
		if st.Kind != spec.Run {
			continue
		}
		wh, _, tpcc := st.Properties.Lookup("tpcc.warehouses")
		_, _, mode := st.Properties.Lookup("tpcc.mode")
		bal, _, ledger := st.Properties.Lookup("ledger.balance")
		floor, _, _ := st.Properties.Lookup("ledger.floor")
		rc, _, _ := st.Properties.Lookup("recordcount")
		require.Equal(t, "100", rc, "%s: a core setting reaches every kind", st.ID)
		switch st.Workload.Name {
		case "tpcc":
			require.Equal(t, "2", wh, st.ID)
			require.True(t, mode, st.ID)
			require.False(t, ledger, st.ID)
			require.Empty(t, floor, st.ID)
		case "ledger":
			require.False(t, tpcc, st.ID)
			require.False(t, mode, st.ID)
			require.Equal(t, "500", bal, st.ID)
			require.Equal(t, "10", floor, st.ID)
		case "a":
			require.False(t, tpcc || mode || ledger, st.ID)
			require.Empty(t, floor, st.ID)
		}
	}
}

// TestKindIsTheWorkloadsOwn: a workload's kind is set on it (its
// properties or its file) and nowhere else; a setting of another kind
// on a workload is refused with the step and the fix, never taken as a
// sign of that kind.
func TestKindIsTheWorkloadsOwn(t *testing.T) {
	for _, c := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"at the top", []string{"properties: {workload.kind: tpcc}", "workloads: [a]"},
			[]string{"testdata/plan.yaml:2:14: properties.workload.kind: a workload's kind is its own: set it in the workload's properties or its property file (one of core, ledger, tpcc)"}},
		{"on a target", []string{"targets: [{database: postgres, properties: {workload.kind: ledger}}]", "workloads: [a]"},
			[]string{"targets[0].properties.workload.kind: a workload's kind is its own"}},
		{"as an axis", []string{"workloads: [a]", "matrix: {workload.kind: [core, tpcc]}"},
			[]string{"matrix.workload.kind: a workload's kind is its own, not an axis"}},
		{"warehouses on workload A", []string{"workloads: [{name: big, builtin: a, properties: {tpcc.warehouses: 2}}]"},
			[]string{`property "tpcc.warehouses": a setting of the tpcc kind`, "this workload's kind is core: set workload.kind=tpcc", "step pg.big"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			lines := append([]string{"name: kinds"}, c.lines...)
			if !strings.Contains(strings.Join(c.lines, "\n"), "targets:") {
				lines = append(lines, "targets: [{name: pg, database: postgres}]")
			}
			s, err := spec.Parse("testdata/plan.yaml", yamlText(lines...), testOptions())
			if err == nil {
				_, err = spec.NewPlan(s)
			}
			require.Error(t, err)
			for _, w := range c.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
	p := plan(t, "name: own", "targets: [{name: pg, database: postgres}]",
		"workloads: [{name: mine, properties: {workload.kind: ledger, recordcount: 10, readproportion: 0, updateproportion: 0, transferproportion: 1}}]")
	last := p.Steps[len(p.Steps)-1]
	kind, _, ok := last.Properties.Lookup("workload.kind")
	require.True(t, ok && kind == "ledger", "a workload's own kind is its step's: %s", last.ID)
}

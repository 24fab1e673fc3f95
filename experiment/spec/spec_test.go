package spec_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/experiment/spec"
)

// badFixtures are the expected errors of every testdata/*.bad.yaml, one
// entry per reported error and in order: the file and line, and the
// parts of the message that say what was expected.
func badFixtures() map[string][]string {
	return map[string][]string{
		"unknown-key.bad.yaml": {
			`unknown-key.bad.yaml:3: unknown key "descripton"; did you mean "description"?`,
			`unknown-key.bad.yaml:12: targets[1].deploy: unknown key "cpu"; did you mean "cpus"?`,
			`unknown-key.bad.yaml:14:24: targets[2].deploy: unknown key "cpu"; did you mean "cpus"?`,
			`unknown-key.bad.yaml:15: targets[2]: unknown key "colour"; valid: cost, database, deploy, driver, name, properties`,
			`unknown-key.bad.yaml:19: workloads[1]: unknown key "bultin"; did you mean "builtin"?`,
			`unknown-key.bad.yaml:21: load: unknown key "thread"; did you mean "threads"?`,
			`unknown-key.bad.yaml:23: run: unknown key "duraton"; did you mean "duration"?`,
		},
		"bad-values.bad.yaml": {
			`bad-values.bad.yaml:2: name: want lower-case letters, digits, '-' and '_', starting with a letter or digit, got "PG vs C"`,
			`bad-values.bad.yaml:3: seed: want an integer >= 0 (0: chosen at run time), got "-3"`,
			`bad-values.bad.yaml:7: targets[0].deploy.nodes: want a positive integer, got "0"`,
			`bad-values.bad.yaml:8: targets[0].deploy.cpus: want a number of cores > 0 such as 1.5, got "-1"`,
			`bad-values.bad.yaml:9: targets[0].deploy.memory: want a size such as 2GiB or 512MiB (units B, KiB, MiB, GiB, TiB, KB, MB, GB, TB), got "2G"`,
			`bad-values.bad.yaml:12: run.threads: want a positive integer or "auto" (a calibration chooses them), got "eight"`,
			`bad-values.bad.yaml:13: run.warmup: want a duration such as 90s or 1m30s, or a number of seconds, got "soon"`,
			`bad-values.bad.yaml:14: run.target: want a rate in operations per second >= 0 (0: unthrottled), got "fast"`,
			`bad-values.bad.yaml:15: run.repetitions: want a positive integer, got a list`,
			`bad-values.bad.yaml:17: load.batch_size: want a positive integer, got "0"`,
			`bad-values.bad.yaml:18: load.verify: want true or false, got "yes"`,
			`bad-values.bad.yaml:19: load.target: want a rate in operations per second >= 0 (0: unthrottled), got "-5"`,
		},
		"unknown-names.bad.yaml": {
			`unknown-names.bad.yaml:4: targets[0].database: unknown database "postgress"; valid: aerospike, alternator, cassandra, cockroachdb, dynamodb, mariadb, mongodb, mysql, postgres, redis, scylladb, yugabyte-ycql, yugabyte-ysql (did you mean "postgres"?)`,
			`unknown-names.bad.yaml:6: targets[1].driver: unknown driver "cqll"; valid: aerospike, basic, cql, dynamodb, memory, mongodb, mysql, postgres, redis (did you mean "cql"?)`,
			`unknown-names.bad.yaml:8: targets[1].deploy.provider: unknown provider "locall"; valid: compose, existing, kubernetes, local, terraform (did you mean "local"?)`,
			`unknown-names.bad.yaml:9: targets[2].database: unknown database "oracle"; valid: aerospike,`,
			`unknown-names.bad.yaml:11: workloads[0]: unknown built-in workload "g"; valid: a, b, c, d, e, f, ledger, tpcc (or workloada to workloadf, workloadledger, workloadtpcc)`,
			`unknown-names.bad.yaml:13: workloads[1].builtin: unknown built-in workload "workloadz"`,
		},
		"duplicates.bad.yaml": {
			`duplicates.bad.yaml:5: targets[1]: duplicate target name "postgres" (first at line 4); a target's name defaults to its database`,
			`duplicates.bad.yaml:8: targets[2]: duplicate key "name" (first at line 6)`,
			`duplicates.bad.yaml:11: workloads[1]: duplicate workload name "a" (first at line 10)`,
			`duplicates.bad.yaml:15: run: duplicate key "threads" (first at line 14)`,
			`duplicates.bad.yaml:17:19: matrix.threads[2]: duplicate value "1" (first at line 17)`,
		},
		"until.bad.yaml": {
			`until.bad.yaml:7: run.until: until: saturated stops a client sweep: it needs a matrix axis "threads" with the thread counts to try, e.g. threads: [1, 2, 4, 8, 16, 32]`,
			`until.bad.yaml:8: run.saturation_gain: want a fraction between 0 and 1 (0.05: a step that adds under 5% is flat), got "5"`,
			`until.bad.yaml:9: run.saturation_steps: want a positive integer, got "0"`,
		},
		"search.bad.yaml": {
			`search.bad.yaml:7: run.until: until: slo searches the highest rate that meets the objective: give one, e.g. slo: {p99: 5ms}`,
			`search.bad.yaml:8: run.resolution: want a fraction from 0.005 to 0.5 (0.05: the search stops once the lowest rate missed is within 5% of the highest met), got "0.9"`,
			`search.bad.yaml:9: run.max_probes: want at least 2 probes (one met, one missed), got 1`,
		},
		"search-target.bad.yaml": {
			`search-target.bad.yaml:8: matrix.target: until: slo searches the rate: drop the matrix axis "target" (the search chooses the rates)`,
		},
		"sizes.bad.yaml": {
			`sizes.bad.yaml:8: matrix.size[0]: a size changes the deployment: give at least one of cpus, memory, nodes, machine_type`,
			`sizes.bad.yaml:9:14: matrix.size[1].cpus: want a number of cores > 0 such as 1.5, got "0"`,
			`sizes.bad.yaml:10:23: matrix.size[2].name: want lower-case letters, digits, '-' and '_', starting with a letter or digit, got "One"`,
			`sizes.bad.yaml:12: matrix.size[4]: duplicate size "500m" (first at line 11)`,
			`sizes.bad.yaml:13: matrix.size[5]: want a size: a mapping of cpus, memory, nodes, machine_type, such as {cpus: 0.5, memory: 1GiB}`,
			`sizes.bad.yaml:14:8: matrix.size[6]: unknown key "cores"; valid: cpus, machine_type, memory, name, nodes`,
		},
		"secret.bad.yaml": {
			`secret.bad.yaml:3: properties.redis.password: a credential written in clear in the experiment file: write ${env:NAME} (or ${file:PATH}) and set the value outside the file`,
			`secret.bad.yaml:7: targets[0].properties.postgres.url: a credential written in clear`,
			`secret.bad.yaml:11:26: targets[1].deploy.options.metrics: a credential written in clear`,
		},
		"slo.bad.yaml": {
			`slo.bad.yaml:5: slo.p99: want a positive duration such as 10ms or 500us, got "soon"`,
			`slo.bad.yaml:6: slo.p95: want a positive duration such as 10ms or 500us, got "0"`,
			`slo.bad.yaml:7: slo: unknown key "p75"; did you mean "p95"?`,
			`slo.bad.yaml:8: slo.achieved: want a fraction in (0, 1] of the target rate a step must reach (0.95: within 5%), got "1.5"`,
		},
		"cost.bad.yaml": {
			`cost.bad.yaml:4: targets[0].cost: instance "n2d-standard-3" is not in the price catalogue`,
			`cost.bad.yaml:7:39: targets[1].cost[0].count: want a positive integer, got "0"`,
			`cost.bad.yaml:8: targets[1].cost[1]: want an instance from the price catalogue (dbarena analyze cost --list-prices) or an extra_hourly price`,
			`cost.bad.yaml:10: targets[2].cost: want "dynamodb", a resource such as {instance: n2d-standard-4, count: 3} or a list of them, got "free"`,
		},
		"stages.bad.yaml": {
			`stages.bad.yaml:6: run: a schedule sets the run's length: drop duration and operations`,
			`stages.bad.yaml:7: run.stages[0]: missing required key "duration": how long the stage lasts, such as 30s`,
			`stages.bad.yaml:8:32: run.stages[1].threads: want a positive integer, got "0"`,
			`stages.bad.yaml:9:31: run.stages[2].target: want a rate in operations per second >= 0 (0: unthrottled), got "fast"`,
			`stages.bad.yaml:11: matrix.threads: run.stages (or ramp) set each stage's threads and target: drop the matrix axis "threads"`,
		},
		"zero.bad.yaml": {
			`zero.bad.yaml:6: run.duration: want a positive duration such as 30s, got "0s": zero would measure nothing`,
			`zero.bad.yaml:7: run.operations: want an integer >= 1, got 0: leave the key out to run for a duration`,
		},
		"zero-stages.bad.yaml": {
			`zero-stages.bad.yaml:8:18: run.stages[1].duration: want a positive duration such as 30s, got "0s": zero would measure nothing`,
		},
		"zero-ramp.bad.yaml": {
			`zero-ramp.bad.yaml:5:42: run.ramp.every: want a positive duration such as 30s, got "0": zero would measure nothing`,
		},
		"reference.bad.yaml": {
			`reference.bad.yaml:6: run.reference: want true or false, got "sometimes"`,
		},
		"both.bad.yaml": {
			`both.bad.yaml:8: workloads[0]: give builtin or file, not both (builtin at line 7)`,
			`both.bad.yaml:11: run: give duration or operations, not both (duration at line 10)`,
		},
		"matrix.bad.yaml": {
			`matrix.bad.yaml:7: matrix.threads: empty list: want at least one value`,
			`matrix.bad.yaml:8: matrix.requestdist: unknown matrix axis "requestdist": want threads, target, a workload property or a driver property (aerospike.*, basic.*, cql.*, dynamodb.*, memory.*, mongodb.*, mysql.*, postgres.*, redis.*); did you mean "requestdistribution"?`,
			`matrix.bad.yaml:9: matrix.threadcount: set by the experiment: use run.threads, load.threads or a matrix axis "threads" instead`,
			`matrix.bad.yaml:10:17: matrix.target[1]: want a rate in operations per second >= 0 (0: unthrottled), got "lots"`,
			`matrix.bad.yaml:11: matrix.recordcount: want a list, got "1000"`,
			`matrix.bad.yaml:12: matrix.nosuchprefix.key: unknown matrix axis "nosuchprefix.key"`,
		},
		"too-many-trials.bad.yaml": {
			`too-many-trials.bad.yaml:7: matrix: the experiment expands to 12000 trials (2 targets x 2 workloads x 3000 matrix points x 1 repetition); the limit is 10000`,
		},
		"missing-file.bad.yaml": {
			`missing-file.bad.yaml:7: workloads[0].file: cannot read property file ` + filepath.Join("testdata", "no", "such.properties") + `: no such file or directory`,
		},
		"invalid-trial.bad.yaml": {
			// The value's line is the matrix's; the step and workload say
			// which trial the value broke.
			`invalid-trial.bad.yaml:12: property "readproportion"="abc": want a finite number (step postgres.a.readproportion=abc; workload a at testdata/invalid-trial.bad.yaml:7)`,
			`invalid-trial.bad.yaml:12: property "readproportion": operation proportions (read 0.5 + update 1 `,
		},
		"missing-required.bad.yaml": {
			`missing-required.bad.yaml:2: missing required key "name"`,
			`missing-required.bad.yaml:2: missing required key "targets"`,
			`missing-required.bad.yaml:4: workloads[0]: missing required key "name" (only a workload with builtin may omit it)`,
			`missing-required.bad.yaml:5: workloads[1]: unknown built-in workload ""`,
		},
		"no-database.bad.yaml": {
			`no-database.bad.yaml:4: targets[0]: missing required key "database"; valid: aerospike, alternator,`,
			`no-database.bad.yaml:5: workloads: want at least one workload, got none`,
			`no-database.bad.yaml:6: matrix: want a mapping, got a list`,
		},
		"owned.bad.yaml": {
			`owned.bad.yaml:4: properties.threadcount: set by the experiment: use run.threads, load.threads or a matrix axis "threads" instead`,
			`owned.bad.yaml:5: properties.operationcount: set by the experiment: use run.operations instead`,
			`owned.bad.yaml:6: properties.exportfile: set by the experiment: use the results directory (trials.csv, timeseries.csv) instead`,
			`owned.bad.yaml:9:18: targets[0].properties.db: set by the experiment: use targets[].driver instead`,
			`owned.bad.yaml:14: workloads[0].properties.maxexecutiontime: set by the experiment: use run.duration instead`,
		},
		"unknown-property.bad.yaml": {
			`unknown-property.bad.yaml:8:61: targets[0].properties.colour: unknown property "colour": want a YCSB workload or client property, a dbarena one, or a driver property (aerospike.*, basic.*, cql.*, dynamodb.*, memory.*, mongodb.*, mysql.*, postgres.*, redis.*)`,
			`unknown-property.bad.yaml:13: workloads[0].properties.requestdistribtion: unknown property "requestdistribtion": want a YCSB workload or client property, a dbarena one, or a driver property (aerospike.*, basic.*, cql.*, dynamodb.*, memory.*, mongodb.*, mysql.*, postgres.*, redis.*); did you mean "requestdistribution"?`,
		},
		"pin.bad.yaml": {
			`pin.bad.yaml:6:19: targets[0].deploy.pin: pin: true needs cpus, the number of whole cores to pin the database to (such as cpus: 1)`,
			`pin.bad.yaml:9:47: targets[1].deploy.pin: pin: true pins local processes to cores of this machine; provider "compose" runs elsewhere (its cpus is a limit of its own)`,
			`pin.bad.yaml:12:28: targets[2].deploy.pin: want true or false, got "yes"`,
		},
		"limits.bad.yaml": {
			`limits.bad.yaml:7: targets[0].deploy.nodes: 1000000000: at most 1000 nodes`,
			`limits.bad.yaml:8:47: targets[0].cost[0].extra_hourly: want a price in USD per hour, 0 or more, such as 0.08, got "NaN"`,
			`limits.bad.yaml:12: workloads[1].file: /dev/zero: larger than the 64 MiB limit for input files`,
			`limits.bad.yaml:14: load.threads: 100000000: at most 100000 workers per loader process; use run.loaders for more`,
			`limits.bad.yaml:15: load.batch_size: 1000000000: at most 100000 records per batch`,
			`limits.bad.yaml:17: run.threads: 100000000: at most 100000 workers per loader process`,
			`limits.bad.yaml:18: run.loaders: 1000000000: at most 1000 loader processes`,
			`limits.bad.yaml:20:16: matrix.threads[1]: 100000000: at most 100000 workers per loader process`,
		},
		"syntax.bad.yaml":        {`syntax.bad.yaml:2: did not find expected '-' indicator`},
		"two-documents.bad.yaml": {`two-documents.bad.yaml:4: more than one YAML document: want one experiment per file`},
		"empty.bad.yaml":         {`empty.bad.yaml: empty file: want a mapping with name, targets and workloads`},
		"not-a-mapping.bad.yaml": {`not-a-mapping.bad.yaml:1: want a mapping, got a list`},
	}
}

func TestBadFixtures(t *testing.T) {
	files, err := filepath.Glob("testdata/*.bad.yaml")
	require.NoError(t, err)
	want := badFixtures()
	require.Len(t, files, len(want), "every bad fixture has an entry in the table and the reverse")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			expected, ok := want[filepath.Base(f)]
			require.True(t, ok, "no expected errors for %s", f)
			s, err := spec.ParseFile(f, testOptions())
			require.Error(t, err)
			require.Nil(t, s)
			lines := strings.Split(err.Error(), "\n")
			require.Len(t, lines, len(expected), "all errors are reported, one per line:\n%s", err)
			for i, e := range expected {
				require.Contains(t, lines[i], "testdata/"+e)
			}
		})
	}
}

// TestErrorType checks decoding errors can be taken apart by editors.
func TestErrorType(t *testing.T) {
	_, err := spec.ParseFile("testdata/unknown-key.bad.yaml", testOptions())
	var e *spec.Error
	require.True(t, errors.As(err, &e))
	require.Equal(t, "testdata/unknown-key.bad.yaml", e.File)
	require.Equal(t, 3, e.Line)
	require.Zero(t, e.Column, "a block key starts its line: no column")
	require.Equal(t, `unknown key "descripton"; did you mean "description"?`, e.Msg)
}

func TestGoodFixtures(t *testing.T) {
	checks := map[string]func(t *testing.T, s *spec.Spec){
		"minimal.good.yaml":    checkMinimal,
		"full.good.yaml":       checkFull,
		"operations.good.yaml": checkOperations,
		"sizes.good.yaml":      checkSizes,
	}
	files, err := filepath.Glob("testdata/*.good.yaml")
	require.NoError(t, err)
	require.Len(t, files, len(checks))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := spec.ParseFile(f, testOptions())
			require.NoError(t, err)
			require.Equal(t, f, s.File)
			_, err = spec.NewPlan(s)
			require.NoError(t, err)
			checks[filepath.Base(f)](t, s)
		})
	}
}

// checkMinimal checks every default.
func checkMinimal(t *testing.T, s *spec.Spec) {
	require.Equal(t, "minimal", s.Name)
	require.Equal(t, "dbarena-results", s.Results)
	require.Zero(t, s.Seed)
	require.Len(t, s.Targets, 1)
	tg := s.Targets[0]
	require.Equal(t, "postgres", tg.Name, "a target is named after its database by default")
	require.Equal(t, "postgres", tg.Driver, "Options.DriverFor picks the driver")
	require.Equal(t, spec.Deploy{Provider: "local", Nodes: 1, Options: map[string]string{}}, tg.Deploy)
	require.Len(t, s.Workloads, 1)
	require.Equal(t, "a", s.Workloads[0].Name)
	require.Equal(t, "a", s.Workloads[0].Builtin)
	require.Equal(t, spec.LoadSettings{Enabled: true, Threads: 4, BatchSize: 1, Drop: true}, s.Load)
	require.Equal(t, spec.RunSettings{Duration: 60 * time.Second, Threads: 8, Repetitions: 1, SaturationGain: 0.05, SaturationSteps: 2, Resolution: 0.05, MaxProbes: 12}, s.Run)
	require.Empty(t, s.Matrix)
}

// checkFull checks every key reached its field.
func checkFull(t *testing.T, s *spec.Spec) {
	require.Equal(t, "full_2", s.Name)
	require.Equal(t, "Every key, to prove the decoder accepts them all.\n", s.Description)
	require.Equal(t, uint64(42), s.Seed)
	require.Equal(t, "out/results", s.Results)
	require.Equal(t, []spec.KV{{Key: "recordcount", Value: "2000", Line: 8}, {Key: "fieldcount", Value: "4", Line: 9}}, s.Properties)

	require.Len(t, s.Targets, 3)
	pg, cass, scylla := s.Targets[0], s.Targets[1], s.Targets[2]
	require.Equal(t, "pg", pg.Name)
	require.Equal(t, map[string]string{"postgres.dialect": "postgres", "postgres.url": "postgres://localhost:5432/ycsb"}, pg.Properties)
	require.Equal(t, map[string]int{"postgres.dialect": 14, "postgres.url": 14}, pg.PropertyLines)
	small := spec.Deploy{Provider: "local", Nodes: 1, CPUs: 1.5, MemoryBytes: 2 << 30, Version: "15",
		Options: map[string]string{"shared_buffers": "512MB"}}
	require.Equal(t, small, pg.Deploy)
	require.Equal(t, small, cass.Deploy, "an alias reuses the anchored mapping")
	require.Equal(t, "cassandra", cass.Name)
	require.Equal(t, "cql", cass.Driver)
	require.Equal(t, "existing-scylla", scylla.Name)
	require.Equal(t, spec.Deploy{Provider: "existing", Nodes: 3, MemoryBytes: 512 << 20, Options: map[string]string{}}, scylla.Deploy)
	require.Equal(t, "10.0.0.1,10.0.0.2", scylla.Properties["cql.hosts"])

	names := []string{}
	for _, w := range s.Workloads {
		names = append(names, w.Name)
	}
	require.Equal(t, []string{"a", "workloadb", "c-uniform", "custom", "inline-writes"}, names)
	require.Equal(t, "b", s.Workloads[1].Builtin)
	require.Equal(t, "c", s.Workloads[2].Builtin)
	require.Equal(t, filepath.Join("testdata", "custom.properties"), s.Workloads[3].File, "resolved against the experiment's directory")
	require.Equal(t, []spec.KV{{Key: "readproportion", Value: "0", Line: 41}, {Key: "updateproportion", Value: "1", Line: 41}},
		s.Workloads[4].Properties)

	require.Equal(t, spec.LoadSettings{Enabled: true, Threads: 2, BatchSize: 100, Drop: true}, s.Load)
	require.Equal(t, spec.RunSettings{Duration: 90 * time.Second, Warmup: 10 * time.Second, Threads: 4, Target: 1000.5,
		Repetitions: 2, SaturationGain: 0.05, SaturationSteps: 2, Resolution: 0.05, MaxProbes: 12}, s.Run, "operations: 0 next to a duration is no count; warmup: 10 is seconds")
	require.Equal(t, []spec.Axis{
		{Property: "threads", Values: []string{"1", "2"}, Line: 56, ValueLines: []int{56, 56}},
		{Property: "requestdistribution", Values: []string{"uniform", "zipfian"}, Line: 57, ValueLines: []int{58, 59}},
	}, s.Matrix)
}

func checkOperations(t *testing.T, s *spec.Spec) {
	require.Equal(t, spec.RunSettings{Operations: 100000, Threads: 16, Repetitions: 1, SaturationGain: 0.05, SaturationSteps: 2, Resolution: 0.05, MaxProbes: 12}, s.Run)
	require.Equal(t, "redis", s.Targets[0].Driver)
}

// TestOptionsUnset checks that nil tables accept any name, so the package
// can parse a file without the tool's registries.
func TestOptionsUnset(t *testing.T) {
	s, err := spec.Parse("x.yaml", yamlText(
		"name: x",
		"targets: [{database: anything, deploy: {provider: somewhere}}]",
		"workloads: [a]",
	), spec.Options{})
	require.NoError(t, err)
	require.Equal(t, "anything", s.Targets[0].Driver, "without DriverFor the driver is the database's name")
	require.Equal(t, "somewhere", s.Targets[0].Deploy.Provider)
}

func TestValues(t *testing.T) {
	tests := map[string]struct {
		run  string
		want spec.RunSettings
	}{
		"go duration":      {run: "{duration: 1m30s}", want: spec.RunSettings{Duration: 90 * time.Second, Threads: 8, Repetitions: 1, SaturationGain: 0.05, SaturationSteps: 2, Resolution: 0.05, MaxProbes: 12}},
		"seconds":          {run: "{duration: 90}", want: spec.RunSettings{Duration: 90 * time.Second, Threads: 8, Repetitions: 1, SaturationGain: 0.05, SaturationSteps: 2, Resolution: 0.05, MaxProbes: 12}},
		"fractional":       {run: "{duration: 0.5}", want: spec.RunSettings{Duration: 500 * time.Millisecond, Threads: 8, Repetitions: 1, SaturationGain: 0.05, SaturationSteps: 2, Resolution: 0.05, MaxProbes: 12}},
		"quoted number":    {run: `{threads: "3"}`, want: spec.RunSettings{Duration: time.Minute, Threads: 3, Repetitions: 1, SaturationGain: 0.05, SaturationSteps: 2, Resolution: 0.05, MaxProbes: 12}},
		"operations only":  {run: "{operations: 5}", want: spec.RunSettings{Operations: 5, Threads: 8, Repetitions: 1, SaturationGain: 0.05, SaturationSteps: 2, Resolution: 0.05, MaxProbes: 12}},
		"neither: default": {run: "{warmup: 1s}", want: spec.RunSettings{Duration: time.Minute, Warmup: time.Second, Threads: 8, Repetitions: 1, SaturationGain: 0.05, SaturationSteps: 2, Resolution: 0.05, MaxProbes: 12}},
		"warm-up until steady": {run: "{warmup: {until: steady, max: 45s}}", want: spec.RunSettings{Duration: time.Minute, Warmup: 45 * time.Second,
			WarmupSteady: true, Threads: 8, Repetitions: 1, SaturationGain: 0.05, SaturationSteps: 2, Resolution: 0.05, MaxProbes: 12}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := spec.Parse("v.yaml", yamlText("name: v", "targets: [{database: postgres}]", "workloads: [a]",
				"run: "+tc.run), testOptions())
			require.NoError(t, err)
			require.Equal(t, tc.want, s.Run)
		})
	}
}

func TestMemory(t *testing.T) {
	tests := map[string]struct {
		in   string
		want int64
		err  bool
	}{
		"bytes":       {in: "16777216", want: 16 << 20},
		"B":           {in: "16777216B", want: 16 << 20},
		"KiB":         {in: "16384KiB", want: 16 << 20},
		"under 16MiB": {in: "16777215", err: true},
		"1KiB":        {in: "1KiB", err: true},
		"MiB spaced":  {in: "512 MiB", want: 512 << 20},
		"GiB":         {in: "2GiB", want: 2 << 30},
		"GiB frac":    {in: "1.5GiB", want: 3 << 29},
		"lower gib":   {in: "2gib", want: 2 << 30},
		"KB":          {in: "20000KB", want: 20_000_000},
		"MB":          {in: "17MB", want: 17_000_000},
		"GB":          {in: "2GB", want: 2_000_000_000},
		"ambiguous G": {in: "2G", err: true},
		"zero":        {in: "0", err: true},
		"negative":    {in: "-1GiB", err: true},
		"words":       {in: "lots", err: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := spec.Parse("m.yaml", yamlText("name: m", "targets:", "  - database: postgres",
				"    deploy: {memory: "+tc.in+"}", "workloads: [a]"), testOptions())
			if tc.err {
				require.ErrorContains(t, err, "m.yaml:4:")
				require.ErrorContains(t, err, "targets[0].deploy.memory: want a size")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, s.Targets[0].Deploy.MemoryBytes)
		})
	}
}

func TestReference(t *testing.T) {
	parse := func(run string) *spec.Spec {
		s, err := spec.Parse("ref.yaml", []byte("name: ref\ntargets: [{database: postgres}]\nworkloads: [c]\nrun: "+run+"\n"), testOptions())
		require.NoError(t, err)
		return s
	}
	require.False(t, parse("{duration: 10s}").Run.Reference, "off unless asked")
	require.True(t, parse("{duration: 10s, reference: true}").Run.Reference)
}

func TestSecretReferencesAreKept(t *testing.T) {
	s, err := spec.Parse("ref.yaml", []byte(`name: ref
properties: {redis.password: "${env:REDIS_PASSWORD}"}
targets:
  - database: postgres
    properties: {postgres.url: "postgres://bench:${file:/run/secrets/pg}@db:5432/ycsb"}
workloads: [c]
`), testOptions())
	require.NoError(t, err)
	require.Equal(t, "${env:REDIS_PASSWORD}", s.Properties[0].Value, "resolved only when a driver needs it")
	require.Equal(t, "postgres://bench:${file:/run/secrets/pg}@db:5432/ycsb", s.Targets[0].Properties["postgres.url"])
}

func TestSLO(t *testing.T) {
	s, err := spec.Parse("slo.yaml", []byte("name: slo\ntargets: [{database: postgres}]\nworkloads: [c]\nslo: {p99: 10ms, p50: 2ms}\n"), testOptions())
	require.NoError(t, err)
	require.Equal(t, &spec.SLO{Achieved: 0.95, Bounds: []spec.SLOBound{{Percentile: "p50", Max: 2 * time.Millisecond}, {Percentile: "p99", Max: 10 * time.Millisecond}}}, s.SLO)
	s, err = spec.Parse("slo.yaml", []byte("name: slo\ntargets: [{database: postgres}]\nworkloads: [c]\n"), testOptions())
	require.NoError(t, err)
	require.Nil(t, s.SLO)
}

func TestCost(t *testing.T) {
	dir := t.TempDir()
	prices := filepath.Join(dir, "prices.yaml")
	require.NoError(t, os.WriteFile(prices, []byte("compiled: \"2026-11\"\nsources: [https://example.com/quote]\ninstances:\n  bare-metal-1: {provider: colo, region: fra, vcpus: 32, memory_gib: 256, monthly_usd: 400}\n"), 0o600))
	file := filepath.Join(dir, "e.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: cost
prices: prices.yaml
targets:
  - database: postgres
    cost: {instance: bare-metal-1}
  - database: scylladb
    cost: [{instance: i4i.xlarge, count: 3, extra_hourly: 0.01}]
  - database: dynamodb
    cost: dynamodb
workloads: [c]
`), 0o644))
	s, err := spec.ParseFile(file, testOptions())
	require.NoError(t, err)
	require.Equal(t, "prices.yaml", s.PricesFile)
	require.Equal(t, []spec.CostResource{{Instance: "bare-metal-1", Count: 1, Line: 5}}, s.Targets[0].Cost.Resources)
	require.Equal(t, []spec.CostResource{{Instance: "i4i.xlarge", Count: 3, ExtraHourly: 0.01, Line: 7}}, s.Targets[1].Cost.Resources)
	require.True(t, s.Targets[2].Cost.DynamoDB)
	in, err := s.Catalogue.Instance("bare-metal-1")
	require.NoError(t, err, "the prices file is laid over the built-in catalogue")
	require.Equal(t, 400.0, in.Monthly())
	_, err = s.Catalogue.Instance("i4i.xlarge")
	require.NoError(t, err, "and the built-in entries stay")
}

func TestStages(t *testing.T) {
	parse := func(run string) *spec.Spec {
		s, err := spec.Parse("s.yaml", []byte("name: s\ntargets: [{database: redis}]\nworkloads: [c]\nrun: "+run+"\n"), testOptions())
		require.NoError(t, err)
		return s
	}
	s := parse("{threads: 2, target: 100, stages: [{duration: 10s}, {duration: 5s, threads: 8, target: 900}, {duration: 10s}]}")
	require.Equal(t, []spec.Stage{{Duration: 10 * time.Second, Threads: 2, Target: 100, Line: 4}, {Duration: 5 * time.Second, Threads: 8, Target: 900, Line: 4}, {Duration: 10 * time.Second, Threads: 2, Target: 100, Line: 4}}, s.Run.Stages)
	require.Equal(t, 25*time.Second, s.Run.Duration, "the schedule's length")
	require.Equal(t, 8, s.Run.Threads, "the largest stage's workers")
	plan, err := spec.NewPlan(s)
	require.NoError(t, err)
	require.Equal(t, s.Run.Stages, plan.Steps[len(plan.Steps)-1].Stages)

	s = parse("{ramp: {from: 4, to: 404, step: 100, every: 30s}}")
	require.Len(t, s.Run.Stages, 5)
	require.Equal(t, 404, s.Run.Stages[4].Threads)
	require.Equal(t, 150*time.Second, s.Run.Duration)
	require.Equal(t, "4 -> 104 -> 204 -> 304 -> 404 threads", spec.DescribeStages(s.Run.Stages))

	_, err = spec.Parse("s.yaml", []byte("name: s\ntargets: [{database: redis}]\nworkloads: [c]\nrun: {ramp: {from: 10, to: 5, step: 1, every: 1s}}\n"), testOptions())
	require.ErrorContains(t, err, "run.ramp.to: want at least from (10), got 5")
}

// TestWarmupUntilSteady checks the warm-up's mapping form: its
// properties for the runner, and its mistakes named by line.
func TestWarmupUntilSteady(t *testing.T) {
	s, err := spec.Parse("w.yaml", yamlText("name: w", "targets: [{database: postgres}]", "workloads: [a]",
		"run: {duration: 10s, warmup: {until: steady, max: 30s}}"), testOptions())
	require.NoError(t, err)
	p, err := spec.NewPlan(s)
	require.NoError(t, err)
	var run *spec.Step
	for i := range p.Steps {
		if p.Steps[i].Kind == spec.Run {
			run = &p.Steps[i]
		}
	}
	require.NotNil(t, run)
	require.True(t, run.WarmupSteady)
	require.Equal(t, 30*time.Second, run.Warmup)
	require.Equal(t, 10*time.Second, run.Duration, "the measured phase keeps its length after the warm-up")

	for in, want := range map[string]string{
		"{until: stable, max: 5s}": `run.warmup.until: want "until: steady"`,
		"{until: steady}":          "w.yaml:4:30: run.warmup: want max",
		"{until: steady, max: 0}":  "run.warmup.max: want a positive duration",
		"{until: steady, mx: 5s}":  `run.warmup: unknown key "mx"`,
		"{until: steady, max: 5s}, duration: null, ramp: {from: 1, to: 2, step: 1, every: 5s}": "until: steady does not go with stages",
	} {
		_, err := spec.Parse("w.yaml", yamlText("name: w", "targets: [{database: postgres}]", "workloads: [a]",
			"run: {duration: 10s, warmup: "+in+"}"), testOptions())
		require.ErrorContains(t, err, want, in)
	}
}

// TestThreadsAuto: run.threads: auto marks every run step, the plan
// shows "auto", and what a calibration cannot serve is refused.
func TestThreadsAuto(t *testing.T) {
	base := "name: x\ntargets: [{database: postgres}]\nworkloads: [a, c]\n"
	s, err := spec.Parse("x.yaml", []byte(base+"run: {duration: 5s, threads: auto, repetitions: 2}\n"), testOptions())
	require.NoError(t, err)
	require.True(t, s.Run.ThreadsAuto)
	p, err := spec.NewPlan(s)
	require.NoError(t, err)
	runs := 0
	for _, st := range p.Steps {
		if st.Kind == spec.Run {
			runs++
			require.True(t, st.ThreadsAuto, st.ID)
			require.Zero(t, st.Threads, st.ID)
		} else {
			require.False(t, st.ThreadsAuto, "a load keeps load.threads")
		}
	}
	require.Equal(t, 4, runs)
	var out strings.Builder
	require.NoError(t, p.Write(&out))
	require.Regexp(t, `postgres\.a\.rep1 +run +postgres +postgres +postgres +a +- +auto `, out.String())

	for name, tc := range map[string]struct{ run, extra, err string }{
		"a threads axis":  {"{duration: 5s, threads: auto}", "matrix: {threads: [1, 2]}\n", `x.yaml:5: matrix.threads: run.threads: auto calibrates the threads; a matrix axis "threads" gives them: choose one`},
		"stages":          {"{threads: auto, stages: [{duration: 5s, threads: 2}]}", "", "run.threads: auto and run.stages: the stages give each one's threads"},
		"loaders":         {"{duration: 5s, threads: auto, loaders: 2}", "", "run.threads: auto calibrates in this process; with run.loaders give the threads of each loader"},
		"a target rate":   {"{duration: 5s, threads: auto, target: 500}", "", "a run.target paces it below that"},
		"another word":    {"{duration: 5s, threads: automatic}", "", `x.yaml:4:30: run.threads: want a positive integer or "auto" (a calibration chooses them), got "automatic"`},
		"auto for a load": {"{duration: 5s}", "load: {threads: auto}\n", `x.yaml:5:17: load.threads: want a positive integer, got "auto"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := spec.Parse("x.yaml", []byte(base+"run: "+tc.run+"\n"+tc.extra), testOptions())
			require.ErrorContains(t, err, tc.err)
		})
	}
}

// TestRepeatWarmup: every repetition warms up until steady, as the
// first does, whether a reload came before it (D inserts, so each of its
// repetitions gets a fresh load) or not: one that followed on the warm
// database after a second's warm-up measured its sessions' cold start.
func TestRepeatWarmup(t *testing.T) {
	s, err := spec.Parse("w.yaml", yamlText("name: w", "targets: [{database: postgres}]", "workloads: [a, d]",
		"run: {duration: 10s, warmup: {until: steady, max: 30s}, repetitions: 3, prewarm: 60s}"), testOptions())
	require.NoError(t, err)
	require.Equal(t, time.Minute, s.Run.Prewarm)
	p, err := spec.NewPlan(s)
	require.NoError(t, err)
	got := map[string]string{}
	for _, st := range p.Steps {
		if st.Kind != spec.Run {
			continue
		}
		got[st.ID] = strings.Join([]string{strconv.FormatBool(st.WarmupSteady), st.Warmup.String(), st.Duration.String()}, " ")
		require.Equal(t, st.Workload.Name == "d", st.ChangesKeys, st.ID)
	}
	require.Equal(t, map[string]string{
		"postgres.a.rep1": "true 30s 10s", "postgres.a.rep2": "true 30s 10s", "postgres.a.rep3": "true 30s 10s",
		"postgres.d.rep1": "true 30s 10s", "postgres.d.rep2": "true 30s 10s", "postgres.d.rep3": "true 30s 10s",
	}, got)
	_, err = spec.Parse("w.yaml", yamlText("name: w", "targets: [{database: postgres}]", "workloads: [d]",
		"run: {duration: 10s, prewarm: 60s}"), testOptions())
	require.ErrorContains(t, err, "run.prewarm: target postgres has no workload that neither inserts nor deletes")
}

// TestThreadsAutoNeedsAReadOnlyRun: the calibration runs on the target's
// first workload that leaves the data as loaded, and a target with none
// is refused.
func TestThreadsAutoNeedsAReadOnlyRun(t *testing.T) {
	parse := func(workloads string) (*spec.Plan, error) {
		s, err := spec.Parse("x.yaml", []byte("name: x\ntargets: [{database: postgres}]\nworkloads: "+workloads+"\nrun: {duration: 5s, threads: auto}\n"), testOptions())
		if err != nil {
			return nil, err // Parse plans too
		}
		return spec.NewPlan(s)
	}
	p, err := parse("[d, b, e]")
	require.NoError(t, err)
	require.Equal(t, "postgres.b", p.KeepsData(&p.Spec.Targets[0]).ID, "d inserts: the first that does not is b")
	_, err = parse("[d, e]")
	require.ErrorContains(t, err, "x.yaml: run.threads: auto: target postgres has no workload that neither inserts nor deletes to run on first")
}

// checkSizes: the matrix axis size runs each target once at each size,
// as a target of its own named after both, its deployment changed only
// where the size says.
func checkSizes(t *testing.T, s *spec.Spec) {
	var names []string
	for _, tg := range s.Targets {
		names = append(names, tg.Name)
	}
	require.Equal(t, []string{"postgres-250m", "postgres-500m-512mib", "postgres-one-core", "redis-250m", "redis-500m-512mib", "redis-one-core"}, names)
	pg := s.Targets[1]
	require.Equal(t, "postgres", pg.Base)
	require.Equal(t, "500m-512mib", pg.Size)
	require.Equal(t, 0.5, pg.Deploy.CPUs)
	require.Equal(t, int64(512<<20), pg.Deploy.MemoryBytes)
	require.Equal(t, int64(1<<30), s.Targets[0].Deploy.MemoryBytes, "memory the size leaves alone is the target's")
	require.Equal(t, 1.0, s.Targets[2].Deploy.CPUs)
	require.Zero(t, s.Targets[3].Deploy.MemoryBytes)
	require.Empty(t, s.Matrix, "size is no property axis")
	p, err := spec.NewPlan(s)
	require.NoError(t, err)
	require.Equal(t, 6, p.LoadCount())
	require.Equal(t, 6, p.RunCount())
	require.Equal(t, "postgres-250m.c", p.Steps[1].ID)
	require.True(t, p.Steps[1].Search)
}

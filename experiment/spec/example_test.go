package spec_test

import (
	"fmt"
	"os"

	"github.com/dbarena/dbarena/experiment/spec"
)

// ExamplePlan_Write shows the --dry-run output: the steps, the counts
// and the time estimate.
func ExamplePlan_Write() {
	file := []byte(`name: quick
seed: 7
properties: {recordcount: 1000, fieldcount: 4}
targets:
  - database: postgres
  - name: cass
    database: cassandra
    driver: cql
workloads: [a, c]
run: {duration: 30s, warmup: 5s}
matrix:
  threads: [1, 8]
`)
	s, err := spec.Parse("quick.yaml", file, spec.Options{DriverPrefixes: []string{"postgres", "cql"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := spec.NewPlan(s)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := p.Write(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// experiment quick (quick.yaml): seed 7; results under dbarena-results/
	// STEP  ID                    KIND  TARGET    DATABASE   DRIVER    WORKLOAD  PARAMS     THREADS  RATE  LENGTH        WARM-UP
	// 0     postgres.load.1       load  postgres  postgres   postgres  a         -          4        -     1000 records  -
	// 1     cass.load.1           load  cass      cassandra  cql       a         -          4        -     1000 records  -
	// 2     postgres.a.threads=1  run   postgres  postgres   postgres  a         threads=1  1        -     30s           5s
	// 3     cass.a.threads=1      run   cass      cassandra  cql       a         threads=1  1        -     30s           5s
	// 4     postgres.a.threads=8  run   postgres  postgres   postgres  a         threads=8  8        -     30s           5s
	// 5     cass.a.threads=8      run   cass      cassandra  cql       a         threads=8  8        -     30s           5s
	// 6     postgres.c.threads=1  run   postgres  postgres   postgres  c         threads=1  1        -     30s           5s
	// 7     cass.c.threads=1      run   cass      cassandra  cql       c         threads=1  1        -     30s           5s
	// 8     postgres.c.threads=8  run   postgres  postgres   postgres  c         threads=8  8        -     30s           5s
	// 9     cass.c.threads=8      run   cass      cassandra  cql       c         threads=8  8        -     30s           5s
	// 10 steps (2 loads, 8 runs) on 2 targets and 2 workloads; estimated time: at least 4m40s (plus 2 loads of unknown length)
}

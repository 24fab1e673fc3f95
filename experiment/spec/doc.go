// Package spec reads experiment files and expands them into plans.
//
// An experiment file is one YAML document describing a comparison: the
// targets (databases and where they run), the YCSB workloads, the load
// and run settings and an optional matrix of parameters:
//
//	name: pg-vs-cassandra
//	properties: {recordcount: 100000}
//	targets:
//	  - database: postgres
//	  - database: cassandra
//	    deploy: {memory: 2GiB}
//	workloads: [a, b, c]
//	run: {duration: 60s, warmup: 10s}
//	matrix:
//	  threads: [1, 8, 64]
//
// Decoding is strict: an unknown key, a duplicate key, a value of the
// wrong form, an unknown database or built-in workload is an error that
// names the file, the line and what was expected, with the nearest valid
// key or name when one is close; Parse reports every problem it finds,
// not only the first. Beyond the file's shape, Parse checks that every
// trial's merged properties form a valid YCSB workload.
//
// NewPlan expands a Spec into ordered Steps, each with its fully merged
// properties, whose sources still point at the line of the YAML (or
// property file) that set them:
//
//	s, err := spec.ParseFile("quick.yaml", opts)
//	plan, err := spec.NewPlan(s)
//	err = plan.Write(os.Stdout) // the --dry-run table
//
// JSONSchema returns the schema of the file for editors; a test keeps it
// in step with the decoder.
package spec

// Package workload implements YCSB's CoreWorkload: the typed configuration
// parsed once from YCSB properties, key naming byte-identical to YCSB, field
// values and the operation mix. It is pure and deterministic per seed: it
// performs no I/O and knows nothing of drivers or timing.
//
// A Workload holds what all workers share (key sequences); each worker
// draws from its own Worker:
//
//	cfg, warnings, err := workload.ParseConfig(props, nil)
//	wl, err := workload.New(cfg)
//	wk, err := wl.NewWorker(id, seed)
//	op := wk.NextTransaction() // READ user6284781860667377211 ...
package workload

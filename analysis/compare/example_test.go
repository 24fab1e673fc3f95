package compare_test

import (
	"fmt"
	"os"

	"github.com/dbarena/dbarena/analysis/compare"
	"github.com/dbarena/dbarena/results"
)

// run builds a results directory's contents in memory: one workload on
// one target, a repetition per throughput. Real callers use results.Read.
func run(dir, version string, throughputs ...float64) *results.Data {
	d := &results.Data{Dir: dir, Manifest: results.Manifest{Status: results.StatusCompleted,
		Targets: []results.TargetInfo{{Name: "pg", Database: "postgres", Version: version}}}}
	for i, x := range throughputs {
		d.Trials = append(d.Trials, results.Trial{Kind: results.KindRun, Target: "pg", Workload: "a",
			Repetition: i + 1, Threads: 16, Throughput: x, Status: results.StatusCompleted,
			Latency: results.Latency{Mean: 16e6 / x, P50: 12e6 / x, P99: 60e6 / x, P999: 90e6 / x}})
	}
	return d
}

func ExampleCompare() {
	before := run("runs/pg16", "16.4", 10210, 10090, 10150)
	after := run("runs/pg17", "17.0", 11920, 12110, 12040)
	r, err := compare.Compare(before, after, 0.95)
	if err != nil {
		fmt.Println(err)
		return
	}
	c := r.Changes[0]
	fmt.Printf("%s %s: %+.1f%% [%+.1f%%, %+.1f%%] %s\n\n", c.Key, c.Metric, 100*c.Delta, 100*c.Low, 100*c.High, c.Verdict)
	if err := r.Write(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// pg a throughput: +18.5% [+16.5%, +20.4%] faster
	//
	// A: runs/pg16
	// B: runs/pg17
	// Values are mean ± standard deviation (repetitions); change is (B - A) / A with its 95% Welch confidence interval.
	//
	// TARGET  WORKLOAD  PARAMS  METRIC            A               B               CHANGE  95% CI            VERDICT
	// pg      a         -       throughput ops/s  10150 ± 60 (3)  12023 ± 96 (3)  +18.5%  [+16.5%, +20.4%]  faster
	//                           p50 µs            1182 ± 7 (3)    998 ± 8 (3)     -15.6%  [-17.0%, -14.2%]  faster
	//                           p99 µs            5911 ± 35 (3)   4991 ± 40 (3)   -15.6%  [-17.0%, -14.2%]  faster
	//                           p999 µs           8867 ± 52 (3)   7486 ± 60 (3)   -15.6%  [-17.0%, -14.2%]  faster
	//                           mean µs           1576 ± 9 (3)    1331 ± 11 (3)   -15.6%  [-17.0%, -14.2%]  faster
	//
	// Warnings:
	//   target pg: version differs: 16.4 in A, 17.0 in B
}

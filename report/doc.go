// Package report turns a results directory into what people read: a
// self-contained HTML page (report.html, with inline SVG figures and an
// embedded style sheet, readable offline), the same figures as SVG and
// PNG files for papers (figures/NAME.svg, figures/NAME.png), and a short
// plain-text verdict for the terminal.
//
// It reads only results.Data, never live objects, so any results
// directory, including one of an interrupted or failed run, can be
// rendered again:
//
//	d, err := results.Read(dir)
//	if err != nil {
//		return err
//	}
//	path, err := report.Write(d) // dir/report.html and dir/figures/
//	if err != nil {
//		return err
//	}
//	fmt.Println(report.Verdict(d))
//	fmt.Println("report:", path)
//
// The page opens with the verdict table (per workload and matrix point,
// per target: mean throughput over repetitions with its spread, p50, p99
// and the share of the row's highest mean, marked best only where that
// lead is established: more than 5% ahead, every ratio's confidence
// interval above 1x), then every warning that should
// make a reader doubt a number (client-bound trials, errors, an
// interrupted run, a working set larger than memory), the targets, the
// figures and a collapsible table of every trial. Figures are drawn with
// gonum.org/v1/plot and capped at 60, so that a large matrix keeps a
// readable page. The figures over time also carry their data as JSON,
// which charts.js draws with the embedded uPlot (uplot/, MIT) for
// pointing and zooming; the SVG stays for readers without JavaScript.
package report

package main

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/dbarena/dbarena"

// floors are the layers of the program, top first; the README's
// architecture map draws the same. A package imports packages of its
// own floor or below, never above. The longest matching prefix places a
// package.
var floors = []struct {
	name     string
	packages []string
}{
	{"entry", []string{"cmd/"}},
	{"pipeline", []string{"experiment", "trial", "loader", "runner", "merge", "report", "analysis/", "live",
		// The conformance suite drives every driver through the runner.
		"driver/drivertest"}},
	{"plug-ins", []string{"driver/", "deploy/", "sysmetrics", "dbmetrics", "reference"}},
	{"contracts and formats", []string{"driver", "deploy", "results", "workload", "workloads", "measure", "properties", "record"}},
	{"leaves", []string{"internal/"}},
}

// floorOf places a package (its path inside the module).
func floorOf(pkg string) (int, bool) {
	best, bestLen := -1, -1
	for i, f := range floors {
		for _, p := range f.packages {
			// "x/" places the packages below x; "x" places x and those
			// below it.
			dir := strings.TrimSuffix(p, "/")
			match := strings.HasPrefix(pkg, dir+"/") || (pkg == dir && !strings.HasSuffix(p, "/"))
			if match && len(p) > bestLen {
				best, bestLen = i, len(p)
			}
		}
	}
	return best, best >= 0
}

// implementation is a plug-in that must not know its siblings: one
// driver package, one deployment provider. The tables that list them
// (driver/drivers, deploy/providers) and shared helpers are not.
func implementation(pkg string) (family string, ok bool) {
	for _, fam := range []string{"driver/", "deploy/"} {
		if strings.HasPrefix(pkg, fam) {
			switch pkg {
			case "driver/drivers", "driver/drivertest", "deploy/providers", "deploy/deploytest":
				return "", false
			}
			return fam, true
		}
	}
	return "", false
}

// table says whether pkg is one of the tables that list the plug-ins:
// the only packages that import them.
func table(pkg string) bool { return pkg == "driver/drivers" || pkg == "deploy/providers" }

// TestLayers walks every import edge of the module (go list), its
// tests' too, and fails on one that runs upward, or that reaches a
// plug-in implementation other than through its table.
func TestLayers(t *testing.T) {
	// A package's tests are held to its floor too: a test that drives a
	// plug-in through the pipeline belongs to the pipeline's tests.
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .TestImports " "}} {{join .XTestImports " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var bad []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "|")
		from := strings.TrimPrefix(strings.TrimPrefix(parts[0], module), "/")
		ff, ok := floorOf(from)
		if !ok {
			bad = append(bad, from+": on no floor; add it to floors and to the README's map")
			continue
		}
		for i, list := range parts[1:] {
			test := i == 1
			for _, imp := range strings.Fields(list) {
				if !strings.HasPrefix(imp, module+"/") {
					continue
				}
				to := strings.TrimPrefix(imp, module+"/")
				tf, ok := floorOf(to)
				if !ok || to == from {
					continue // reported as a package of its own; a package's external tests import it
				}
				var why []string
				if tf < ff {
					why = append(why, from+" ("+floors[ff].name+") imports "+to+" ("+floors[tf].name+")")
				}
				if _, impl := implementation(to); impl && !strings.HasPrefix(to, from+"/") && !table(from) {
					why = append(why, from+" imports the plug-in "+to+": reach it through its table ("+
						"driver/drivers, deploy/providers) and a capability of its contract")
				}
				if len(why) == 0 {
					continue
				}
				for _, w := range why {
					if test {
						w += " (in its tests)"
					}
					bad = append(bad, w)
				}
			}
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// TestFloorOf pins the placement rules the test relies on.
func TestFloorOf(t *testing.T) {
	for pkg, want := range map[string]string{
		"cmd/dbarena/cli":    "entry",
		"driver":             "contracts and formats",
		"driver/postgres":    "plug-ins",
		"driver/drivertest":  "pipeline",
		"internal/cgroup":    "leaves",
		"deploy/local":       "plug-ins",
		"workload/generator": "contracts and formats",
		"internal/clock":     "leaves",
		"analysis/usl":       "pipeline",
		"experiment/spec":    "pipeline",
	} {
		f, ok := floorOf(pkg)
		if !ok || floors[f].name != want {
			t.Errorf("%s: floor %d, want %s", pkg, f, want)
		}
	}
}

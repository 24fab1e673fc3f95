package usl

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadCSV(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []Point
	}{
		{"by name, extra columns", "run,Threads,ops_sec\na,1,10\nb,2,19.5\n", []Point{{1, 10}, {2, 19.5}}},
		{"X named first", "throughput,nodes\n10,1\n19,2\n", []Point{{1, 10}, {2, 19}}},
		{"only N named", "rate,clients\n30,4\n", []Point{{4, 30}}},
		{"only X named", "x,tput\n", nil},
		{"by position", "a,b\n1,10\n2,20\n", []Point{{1, 10}, {2, 20}}},
		{"no header", "1,10\n2,20\n", []Point{{1, 10}, {2, 20}}},
		{"comments and spaces", "# source: somewhere\nn, x\n# a comment\n1, 10\n 2 , 20\n", []Point{{1, 10}, {2, 20}}},
		{"byte-order mark", "\ufeffconcurrency,ops\n8,80\n", []Point{{8, 80}}},
		{"repetitions", "n,x\n1,10\n1,11\n2,19\n", []Point{{1, 10}, {1, 11}, {2, 19}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			pts, err := ReadCSV(strings.NewReader(c.in), "f.csv")
			if c.want == nil {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, pts)
		})
	}
}

func TestReadCSVErrors(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
	}{
		{"empty", "", "bad.csv: empty file"},
		{"header only", "n,x\n", "bad.csv: no points after the header"},
		{"one column", "n\n1\n", "bad.csv:1: want at least two columns"},
		{"X by position is a label", "label,clients,rate\na,4,30\n", `bad.csv:2: column label: "a" is not a number`},
		{"not a number", "n,x\n1,10\n2,abc\n", `bad.csv:3: column x: "abc" is not a number`},
		{"line counts comments", "# note\nthreads,ops\n1,10\n2,x\n", `bad.csv:4: column ops: "x" is not a number`},
		{"zero N", "n,x\n0,10\n", "bad.csv:2: column n: 0: want a positive, finite number"},
		{"negative X", "n,x\n1,-10\n", "bad.csv:2: column x: -10: want a positive"},
		{"NaN X", "n,x\n1,NaN\n", "bad.csv:2: column x: NaN: want a positive"},
		{"infinite N", "n,x\n+Inf,3\n", "bad.csv:2: column n: +Inf: want a positive"},
		{"no header, bad value", "1,10\n2,-1\n", "bad.csv:2: column 2: -1: want a positive"},
		{"wrong field count", "n,x\n1,10\n2\n", "bad.csv:3:1: wrong number of fields"},
		{"bad quoting", "n,x\n1,\"10\n", "bad.csv:2:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(c.in), "bad.csv")
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestReadCSVStopsAtTheSizeLimit(t *testing.T) {
	f, err := os.Open("/dev/zero")
	require.NoError(t, err)
	defer f.Close()
	_, err = ReadCSV(f, "/dev/zero")
	require.EqualError(t, err, "/dev/zero: larger than the 64 MiB limit for input files; is it the right file?")
}

// TestTestdataFitsAsItShould reads every dataset in testdata and fits it:
// the files stay readable by the reader dbarena analyze usl uses.
func TestTestdataFitsAsItShould(t *testing.T) {
	for _, c := range []struct {
		file  string
		n     int
		model string
	}{
		{"specsdm91.csv", 7, ModelUSL},
		{"raytracer.csv", 11, ModelAmdahl},
		{"coef.csv", 6, ModelUSL},
	} {
		t.Run(c.file, func(t *testing.T) {
			fit, err := FitPoints(readPoints(t, c.file))
			require.NoError(t, err)
			require.Equal(t, c.n, fit.N)
			require.Equal(t, c.model, fit.Model)
		})
	}
}

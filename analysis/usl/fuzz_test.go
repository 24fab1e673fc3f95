package usl

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzReadCSV checks the USL CSV reader on any input: it never panics,
// errors name the file, every point it returns is positive and finite,
// and the points written back as a plain n,x CSV read back the same.
func FuzzReadCSV(f *testing.F) {
	files, err := filepath.Glob("testdata/*.csv")
	require.NoError(f, err)
	for _, path := range files {
		b, err := os.ReadFile(path)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte("\ufeffthreads,ops\n# a comment\n1,10\n2, 19.5\n"))
	f.Add([]byte("1,10\n2,19\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pts, err := ReadCSV(strings.NewReader(string(data)), "fuzz.csv")
		if err != nil {
			require.True(t, strings.HasPrefix(err.Error(), "fuzz.csv"), "error without the file: %v", err)
			return
		}
		require.NotEmpty(t, pts)
		var b strings.Builder
		b.WriteString("n,x\n")
		for _, p := range pts {
			for _, v := range []float64{p.N, p.X} {
				require.True(t, v > 0 && !math.IsInf(v, 0), "point %+v", p)
			}
			b.WriteString(strconv.FormatFloat(p.N, 'g', -1, 64) + "," + strconv.FormatFloat(p.X, 'g', -1, 64) + "\n")
		}
		again, err := ReadCSV(strings.NewReader(b.String()), "written.csv")
		require.NoError(t, err)
		require.Equal(t, pts, again)
		fit, err := FitPoints(pts)
		if err != nil {
			return
		}
		// Values near 1e-300 gave a NaN R²: only points that are all
		// equal leave it undefined.
		same := true
		for _, p := range pts {
			same = same && p.X == pts[0].X
		}
		require.True(t, same || !math.IsNaN(fit.R2), "R² of %v", pts)
		require.False(t, math.IsNaN(fit.Lambda) || math.IsInf(fit.Lambda, 0), "λ of %v", pts)
	})
}

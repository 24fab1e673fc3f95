package spec_test

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/internal/bounds"
)

// FuzzParse checks the experiment decoder on any input: it never panics,
// every error names the file, and a spec it accepts plans and prints with
// every step's threads and rate within the bounds.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"testdata/*.yaml", "../../examples/*.yaml", "quickstart.yaml"} {
		files, err := filepath.Glob(pattern)
		require.NoError(f, err)
		for _, path := range files {
			b, err := os.ReadFile(path)
			require.NoError(f, err)
			if !bytes.Contains(b, []byte("/dev/")) {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Contains(data, []byte("/dev/")) {
			// Reading /dev/zero up to its 64 MiB cap takes half a second
			// and would slow the fuzzer a hundredfold; TestBadFixtures
			// covers it.
			t.Skip()
		}
		// In testdata, so that a workload file: custom.properties resolves.
		const name = "testdata/fuzz.yaml"
		s, err := spec.Parse(name, data, testOptions())
		if err != nil {
			for _, e := range unjoin(err) {
				require.Contains(t, e.Error(), name, "error without the file")
			}
			return
		}
		plan, err := spec.NewPlan(s)
		require.NoError(t, err, "Parse accepted what NewPlan refuses")
		require.NoError(t, plan.Write(io.Discard))
		for _, st := range plan.Steps {
			require.True(t, st.ThreadsAuto || st.Threads >= 1 && st.Threads <= bounds.MaxThreads, "step %s: %d threads", st.ID, st.Threads)
			require.True(t, !st.ThreadsAuto || st.Threads == 0 && st.Kind == spec.Run, "step %s: auto and %d threads", st.ID, st.Threads)
			require.True(t, st.Rate >= 0 && !math.IsInf(st.Rate, 0), "step %s: rate %v", st.ID, st.Rate)
		}
	})
}

// unjoin returns the errors an errors.Join holds, or err alone.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

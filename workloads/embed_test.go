package workloads_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workloads"
)

func TestCanonical(t *testing.T) {
	tests := map[string]struct {
		in   string
		want string
		ok   bool
	}{
		"short":        {in: "a", want: "a", ok: true},
		"long":         {in: "workloadf", want: "f", ok: true},
		"unknown":      {in: "g", ok: false},
		"unknown long": {in: "workloadg", ok: false},
		"prefix only":  {in: "workload", ok: false},
		"upper case":   {in: "A", ok: false},
		"empty":        {in: "", ok: false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, ok := workloads.Canonical(tc.in)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestEmbeddedMatchFiles guards against the embedded copy and the files
// in the repository drifting apart, and checks every built-in is a valid
// workload.
func TestEmbeddedMatchFiles(t *testing.T) {
	for _, n := range workloads.Names() {
		t.Run(n, func(t *testing.T) {
			path, data, err := workloads.Read("workload" + n)
			require.NoError(t, err)
			require.Equal(t, "workloads/workload"+n, path)
			onDisk, err := os.ReadFile("workload" + n)
			require.NoError(t, err)
			require.Equal(t, onDisk, data)

			props, err := workloads.Properties(n)
			require.NoError(t, err)
			_, warnings, err := workload.ParseConfig(props, nil)
			require.NoError(t, err)
			require.Empty(t, warnings)
			_, src, ok := props.Lookup("operationcount")
			require.True(t, ok)
			require.Contains(t, src.String(), "workloads/workload"+n+":")
		})
	}
}

func TestReadUnknown(t *testing.T) {
	_, _, err := workloads.Read("g")
	require.ErrorContains(t, err, `unknown built-in workload "g"; valid: a, b, c, d, e, f`)
	_, err = workloads.Properties("workloadz")
	require.ErrorContains(t, err, `"workloadz"`)
}

func TestFromPath(t *testing.T) {
	tests := map[string]struct {
		in   string
		want string
	}{
		"bare":            {in: "workloada", want: "a"},
		"repository path": {in: "workloads/workloadb", want: "b"},
		"dot slash":       {in: "./workloads/workloadf", want: "f"},
		"short name":      {in: "a"},
		"other folder":    {in: "conf/workloada"},
		"unknown":         {in: "workloads/workloadg"},
		"prefix only":     {in: "workloads/workload"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, ok := workloads.FromPath(tc.in)
			require.Equal(t, tc.want != "", ok)
			require.Equal(t, tc.want, got)
		})
	}
}

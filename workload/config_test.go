package workload_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/workload"
)

func parseFile(t *testing.T, path string, prefixes ...string) (workload.Config, []workload.Warning, error) {
	t.Helper()
	p, err := properties.ParseFile(path)
	require.NoError(t, err)
	return workload.ParseConfig(p, prefixes)
}

func TestDefaultsAreYCSBs(t *testing.T) {
	c, w, err := workload.ParseConfig(properties.New(), nil)
	require.NoError(t, err)
	require.Empty(t, w)
	require.Equal(t, "usertable", c.Table)
	require.Equal(t, 10, c.FieldCount)
	require.Equal(t, int64(100), c.FieldLength)
	require.Equal(t, 0.95, c.ReadProportion)
	require.Equal(t, 0.05, c.UpdateProportion)
	require.Equal(t, workload.DistUniform, c.RequestDistribution)
	require.Equal(t, workload.InsertHashed, c.InsertOrder)
	require.Equal(t, int64(1000), c.MaxScanLength)
	require.True(t, c.ReadAllFields)
	require.False(t, c.WriteAllFields)
	require.Equal(t, []string{"field0", "field1"}, c.FieldNames()[:2])
}

func TestGoodFile(t *testing.T) {
	c, w, err := parseFile(t, "testdata/ok.good.properties")
	require.NoError(t, err)
	require.Empty(t, w)
	require.Equal(t, int64(5000), c.RecordCount)
	require.Equal(t, int64(100), c.OperationCount)
	require.Equal(t, 4, c.FieldCount)
	require.Equal(t, workload.DistHotspot, c.RequestDistribution)
	require.Equal(t, 0.1, c.HotspotDataFraction)
	require.Equal(t, workload.InsertOrdered, c.InsertOrder)
	require.Equal(t, "table", c.Table, "line continuation")
	require.Equal(t, int64(5000), c.EffectiveInsertCount())
}

func TestBadFiles(t *testing.T) {
	for file, want := range map[string][]string{
		"proportions.bad.properties":  {"sum to 0.9", "want 1"},
		"distribution.bad.properties": {"distribution.bad.properties:3", `"requestdistribution"`, "pareto", "uniform, zipfian, hotspot, latest, sequential, exponential"},
		"number.bad.properties":       {"number.bad.properties:1", `"fieldlength"`, "100b", "integer"},
		"integrity.bad.properties":    {"integrity.bad.properties:1", "dataintegrity", "constant"},
		"bool.bad.properties":         {"bool.bad.properties:1", "readallfields", "true or false"},
		"scan.bad.properties":         {"scan.bad.properties:1", "minscanlength", "maxscanlength"},
		"insertcount.bad.properties":  {"insertcount.bad.properties:3", "beyond recordcount"},
	} {
		t.Run(file, func(t *testing.T) {
			_, _, err := parseFile(t, filepath.Join("testdata", file))
			require.Error(t, err)
			for _, w := range want {
				require.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestStandardWorkloads(t *testing.T) {
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		t.Run(name, func(t *testing.T) {
			c, w, err := parseFile(t, "../workloads/workload"+name)
			require.NoError(t, err)
			require.Empty(t, w)
			_, err = workload.New(c)
			require.NoError(t, err)
		})
	}
}

func TestUnknownPropertyWarnings(t *testing.T) {
	p := properties.New()
	p.Set("readproportoin", "0.5", properties.Source{File: "w", Line: 3})
	p.Set("postgres.url", "x", properties.Source{File: "-p"})
	p.Set("somethingelse", "1", properties.Source{File: "-p"})
	_, w, err := workload.ParseConfig(p, []string{"postgres"})
	require.NoError(t, err)
	require.Len(t, w, 2, "driver-prefixed properties pass silently")
	require.Equal(t, "readproportoin", w[0].Key)
	require.Equal(t, "readproportion", w[0].Suggestion)
	require.Contains(t, w[0].String(), "w:3")
	require.Empty(t, w[1].Suggestion)
}

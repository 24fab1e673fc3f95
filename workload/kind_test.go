package workload_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/workload"
)

// TestKindIsNamedNeverInferred: a workload's kind is what its
// workload.kind property says (core when it says none), and a setting of another kind
// is refused naming the property, the kind it belongs to and the fix,
// never taken as a sign of that kind (tpcc.warehouses on a core
// workload once made it TPC-C).
func TestKindIsNamedNeverInferred(t *testing.T) {
	for _, tc := range []struct {
		name string
		kv   []string
		kind workload.Kind
		err  []string
	}{
		{"none named: core", []string{"recordcount", "10"}, workload.KindCore, nil},
		{"tpcc, one warehouse by default", []string{"workload.kind", "tpcc"}, workload.KindTPCC, nil},
		{"a ledger", []string{"workload.kind", "ledger", "recordcount", "10", "readproportion", "0", "updateproportion", "0", "transferproportion", "1"}, workload.KindLedger, nil},
		{"a core workload with YCSB's zero transfers", []string{"recordcount", "10", "transferproportion", "0"}, workload.KindCore, nil},
		{"warehouses on a core workload", []string{"recordcount", "10", "tpcc.warehouses", "2"}, "",
			[]string{`property "tpcc.warehouses"`, "a setting of the tpcc kind", "this workload's kind is core", "set workload.kind=tpcc"}},
		{"transfers on a core workload", []string{"recordcount", "10", "readproportion", "0.5", "updateproportion", "0", "transferproportion", "0.5"}, "",
			[]string{`property "transferproportion"`, "a setting of the ledger kind", "set workload.kind=ledger"}},
		{"a ledger's setting on TPC-C", []string{"workload.kind", "tpcc", "ledger.balance", "10"}, "",
			[]string{`property "ledger.balance"`, "this workload's kind is tpcc"}},
		{"a kind that does not exist", []string{"workload.kind", "tpc-c"}, "",
			[]string{`property "workload.kind"`, `"tpc-c": want a workload kind, one of core, ledger, tpcc`}},
		{"TPC-C without a warehouse", []string{"workload.kind", "tpcc", "tpcc.warehouses", "0"}, "",
			[]string{`property "tpcc.warehouses"`, "0: want a number of warehouses, at least 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseKV(tc.kv...)
			if tc.err != nil {
				require.Error(t, err)
				for _, want := range tc.err {
					require.Contains(t, err.Error(), want)
				}
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.kind, c.Kind)
			require.Equal(t, tc.kind == workload.KindTPCC, c.IsTPCC())
			require.Equal(t, tc.kind == workload.KindLedger, c.IsLedger())
			if c.IsTPCC() {
				require.EqualValues(t, 1, c.TPCC.Warehouses)
			}
		})
	}
}

// TestKindSettingsReach: set for a whole experiment, a kind's own
// settings reach that kind's workloads only; every other setting
// reaches all.
func TestKindSettingsReach(t *testing.T) {
	for _, tc := range []struct {
		key                  string
		core, ledger, tpccOK bool
	}{
		{core.RecordCount, true, true, true},
		{core.TPCCWarehouses, false, false, true},
		{core.TPCCMix, false, false, true},
		{core.LedgerBalance, false, true, false},
		{core.TransferProportion, false, true, false},
		{core.ReadProportion, true, true, true},
	} {
		require.Equal(t, tc.core, workload.KindCore.Reaches(tc.key), tc.key)
		require.Equal(t, tc.ledger, workload.KindLedger.Reaches(tc.key), tc.key)
		require.Equal(t, tc.tpccOK, workload.KindTPCC.Reaches(tc.key), tc.key)
	}
	require.False(t, workload.KindCore.Info().RunChanges, "a core run changes data by its inserts and deletes only")
	require.True(t, workload.KindLedger.Info().RunChanges)
	require.True(t, workload.KindTPCC.Info().RunChanges)
	kinds := workload.Kinds()
	require.Len(t, kinds, 3)
	kinds[0].Summary = "changed"
	require.NotEqual(t, "changed", workload.Kinds()[0].Summary, "the table is the package's: a caller changes its copy")
}

// TestDataShape: two workloads run on one load exactly when their data
// shapes are equal. A read proportion does not change the data; a
// ledger's opening balance, TPC-C's warehouses, the record count and
// the kind itself do.
func TestDataShape(t *testing.T) {
	shape := func(kv ...string) string {
		t.Helper()
		c, err := parseKV(kv...)
		require.NoError(t, err)
		var s string
		for _, kv := range c.DataShape() {
			s += kv.Key + "=" + kv.Value + ";"
		}
		return s
	}
	ledger := []string{"workload.kind", "ledger", "recordcount", "10", "readproportion", "0", "updateproportion", "0", "transferproportion", "1"}
	core10 := shape("recordcount", "10")
	require.Equal(t, core10, shape("recordcount", "10", "readproportion", "0.2", "updateproportion", "0.8"), "the mix reads the same data")
	require.NotEqual(t, core10, shape("recordcount", "11"))
	require.NotEqual(t, core10, shape(ledger...), "a ledger's accounts are not YCSB's records")
	require.Equal(t, shape(ledger...), shape(append(ledger, "ledger.audit.interval", "1s")...), "when it audits is not its data")
	require.NotEqual(t, shape(ledger...), shape(append(ledger, "ledger.balance", "7")...))
	require.Contains(t, shape(ledger...), core.LedgerBalance+"=")
	require.NotContains(t, core10, core.LedgerBalance, "a core workload has no balance")
	require.NotEqual(t, shape("workload.kind", "tpcc"), shape("workload.kind", "tpcc", "tpcc.warehouses", "2"))
}

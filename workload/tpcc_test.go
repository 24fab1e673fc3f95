package workload_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workload/tpcc"
)

// TestTPCCMix: a TPC-C workload draws only the five transactions, in
// the shares of tpcc.mix (the default deck, then a mix of Payments
// alone), and nothing of YCSB's.
func TestTPCCMix(t *testing.T) {
	wk, err := newWorkload(t, "workload.kind", "tpcc", "tpcc.warehouses", "2").NewWorker(0, 1)
	require.NoError(t, err)
	const n = 50_000
	got := map[tpcc.Kind]int{}
	for range n {
		k, ok := wk.NextTransaction().Kind.TPCC()
		require.True(t, ok)
		got[k]++
	}
	for k, share := range tpcc.DefaultMix() {
		require.InDelta(t, share/100, float64(got[tpcc.Kind(k)])/n, 0.01, tpcc.Kind(k))
	}

	wk, err = newWorkload(t, "workload.kind", "tpcc", "tpcc.warehouses", "1", "tpcc.mix", "0,100,0,0,0").NewWorker(0, 1)
	require.NoError(t, err)
	for range 1000 {
		require.Equal(t, workload.Payment, wk.NextTransaction().Kind)
	}
}

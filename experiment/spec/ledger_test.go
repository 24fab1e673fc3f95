package spec_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/experiment/spec"
)

// TestLedgerReloads: every ledger run starts from a fresh load, so a
// repetition never inherits the balances (or a loss) of the one before,
// and YCSB's workloads never run on a ledger's accounts or the ledger on
// theirs.
func TestLedgerReloads(t *testing.T) {
	s, err := spec.Parse("l.yaml", yamlText("name: l", "targets: [{database: postgres}]", "workloads: [c, ledger, a]",
		"run: {repetitions: 2, order: sequential}"), testOptions())
	require.NoError(t, err)
	p, err := spec.NewPlan(s)
	require.NoError(t, err)
	var kinds []string
	for _, st := range p.Steps {
		kinds = append(kinds, st.ID)
		if st.Kind == spec.Run && st.Workload.Name == "ledger" {
			require.True(t, st.ChangesKeys, st.ID)
		}
	}
	require.Equal(t, []string{
		"postgres.load.1", "postgres.c.rep1", "postgres.c.rep2",
		"postgres.load.2", "postgres.ledger.rep1", "postgres.load.3", "postgres.ledger.rep2",
		"postgres.load.4", "postgres.a.rep1", "postgres.a.rep2",
	}, kinds)
}

// In rounds, the ledger's runs and YCSB's alternate: each still starts
// from the data it needs, freshly loaded after a run that changed it.
func TestLedgerReloadsInRounds(t *testing.T) {
	s, err := spec.Parse("l.yaml", yamlText("name: l", "targets: [{database: postgres}]", "workloads: [c, ledger, a]",
		"run: {repetitions: 3}"), testOptions())
	require.NoError(t, err)
	p, err := spec.NewPlan(s)
	require.NoError(t, err)
	requireDataReady(t, p)
	require.Equal(t, 9, p.RunCount())
}

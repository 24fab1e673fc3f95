package workload_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/workload"
)

// ledger is the base of the ledger tests: 100 accounts, transfers only.
var ledger = []string{
	"workload.kind", "ledger", "recordcount", "100", "fieldcount", "3", "fieldlength", "8",
	"readproportion", "0", "updateproportion", "0", "transferproportion", "1",
	"ledger.balance", "500", "ledger.floor", "-50", "ledger.maxamount", "30",
}

func parseKV(kv ...string) (workload.Config, error) {
	p := properties.New()
	for i := 0; i < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], properties.Source{File: "test"})
	}
	c, _, err := workload.ParseConfig(p, nil)
	return c, err
}

// TestLedgerSettings checks each of the ledger's rules on both sides:
// the setting just allowed, then just refused, with an error that names
// the property and says what is wanted.
func TestLedgerSettings(t *testing.T) {
	c, err := parseKV(ledger...)
	require.NoError(t, err)
	require.True(t, c.IsLedger())
	require.Equal(t, workload.Ledger{Balance: 500, Floor: -50, MaxAmount: 30, AuditEvery: 5 * time.Second}, c.Ledger)
	require.Equal(t, "field0", c.BalanceField())

	for _, tc := range []struct {
		name      string
		ok, bad   []string
		wantError []string
	}{
		{"reads beside transfers, never other writes",
			[]string{"readproportion", "0.5", "transferproportion", "0.5"},
			[]string{"updateproportion", "0.01", "transferproportion", "0.99"},
			[]string{`"updateproportion"`, "only by transfers", "want 0"}},
		{"an amount of at least 1",
			[]string{"ledger.maxamount", "1"}, []string{"ledger.maxamount", "0"},
			[]string{`"ledger.maxamount"`, "want at least 1"}},
		{"accounts start at or above their floor",
			[]string{"ledger.floor", "500"}, []string{"ledger.floor", "501"},
			[]string{`"ledger.balance"`, "below ledger.floor 501"}},
		{"no distribution of keys inserted during the run",
			[]string{"requestdistribution", "hotspot"}, []string{"requestdistribution", "latest"},
			[]string{`"requestdistribution"`, "want uniform, zipfian, hotspot or sequential"}},
		{"balances exact below 2^50",
			[]string{"ledger.balance", "11258999068426"}, []string{"ledger.balance", "11258999068427"},
			[]string{"2^50", "want amounts within 11258999068426"}},
		{"two accounts at least: a transfer needs two",
			[]string{"recordcount", "2"}, []string{"recordcount", "1"},
			[]string{`"recordcount"`, "1 accounts", "want at least 2"}},
		{"audits during the run: an interval, or 0 for none",
			[]string{"ledger.audit.interval", "0"}, []string{"ledger.audit.interval", "-1s"},
			[]string{`"ledger.audit.interval"`, "a duration"}},
		{"no dataintegrity: the first field is a balance",
			[]string{"dataintegrity", "false"}, []string{"dataintegrity", "true"},
			[]string{`"dataintegrity"`, "balance"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseKV(append(append([]string(nil), ledger...), tc.ok...)...)
			require.NoError(t, err)
			_, err = parseKV(append(append([]string(nil), ledger...), tc.bad...)...)
			require.Error(t, err)
			for _, w := range tc.wantError {
				require.Contains(t, err.Error(), w)
			}
		})
	}
}

// TestLedgerOperations checks what the ledger draws: accounts loaded
// with the balance in their first field, and transfers between two
// different existing accounts of 1 to maxamount, both ends of the range
// reached.
func TestLedgerOperations(t *testing.T) {
	wl := newWorkload(t, ledger...)
	wk, err := wl.NewWorker(0, 1)
	require.NoError(t, err)
	loaded := 0
	for op := wk.NextInsert(); op != nil; op = wk.NextInsert() {
		require.Len(t, op.Values, 3)
		require.Equal(t, "field0", op.Values[0].Name)
		require.Equal(t, "500", string(op.Values[0].Value))
		require.Len(t, op.Values[1].Value, 8, "the other fields are filler")
		loaded++
	}
	require.Equal(t, 100, loaded)

	amounts := map[int64]bool{}
	for range 20000 {
		op := wk.NextTransaction()
		require.Equal(t, workload.Transfer, op.Kind)
		require.NotEqual(t, op.KeyNum, op.ToKeyNum)
		require.NotEqual(t, op.Key, op.ToKey)
		require.Equal(t, workload.KeyName(op.ToKeyNum, true, 1), op.ToKey)
		require.True(t, op.KeyNum >= 0 && op.KeyNum < 100 && op.ToKeyNum >= 0 && op.ToKeyNum < 100)
		require.True(t, op.Amount >= 1 && op.Amount <= 30, "amount %d", op.Amount)
		amounts[op.Amount] = true
	}
	require.Len(t, amounts, 30, "every amount in 1..maxamount is drawn")
}

// TestLedgerTwoAccounts draws transfers between the only two accounts a
// sequential distribution offers: the receiver is never the payer.
func TestLedgerTwoAccounts(t *testing.T) {
	wl := newWorkload(t, append(append([]string(nil), ledger...), "recordcount", "2", "requestdistribution", "sequential")...)
	wk, err := wl.NewWorker(0, 1)
	require.NoError(t, err)
	for range 100 {
		op := wk.NextTransaction()
		require.NotEqual(t, op.KeyNum, op.ToKeyNum)
	}
}

package trial

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/results"
	"github.com/dbarena/dbarena/runner"
	"github.com/dbarena/dbarena/workload/ledger"
)

// ledgerSampler sums a ledger's balances in one snapshot every
// ledger.audit.interval while its transfers run, so that money that
// went missing and came back before the end, or a balance that dipped
// below the floor, fails the trial too: the audit after the run sees
// only the end state.
type ledgerSampler struct {
	db                        driver.LedgerSummer
	table, field              string
	accounts, expected, floor int64
	every                     time.Duration
	start                     time.Time

	cancel context.CancelFunc
	done   sync.WaitGroup
	rec    results.LedgerSnapshots
}

// ledgerPart is the ledger's part in a trial: the balances sampled
// while transfers run, the audit of every account after, and the
// transfers declined.
type ledgerPart struct{ corePart }

func (ledgerPart) transactional() bool { return true }

// watch samples the balances while the run phase runs; the sums taken
// join the audit's report.
func (ledgerPart) watch(ctx context.Context, t *Trial) func() func(*Outcome) {
	l := t.startLedgerSampler(ctx)
	return func() func(*Outcome) {
		during := l.stop()
		return func(o *Outcome) {
			if r, ok := o.Audit.(*results.LedgerReport); ok {
				r.During = during
			}
		}
	}
}

// audit reads every account back: the sum, those below the floor.
func (ledgerPart) audit(ctx context.Context, t *Trial, threads int) (results.Audit, error) {
	var r *results.LedgerReport
	err := t.bounded(ctx, "ledger audit", func(ctx context.Context) (err error) {
		r, err = ledger.Audit(ctx, threads, t.WorkloadConfig, t.DB)
		return err
	})
	if r == nil {
		return nil, err
	}
	return r, err
}

func (ledgerPart) resultCounters(res *runner.Result) []results.Counter {
	return []results.Counter{{Name: results.CounterLedgerDeclined, Value: float64(res.Declined),
		Help: "transfers declined: the payer would go below the floor, counted done"}}
}

// startLedgerSampler starts the sampler of a ledger's run phase; nil
// when there is none to take: not a run phase, no interval, a driver
// that takes no snapshot, or a trial shared by loaders (each would
// sample, and the parent audits).
func (t *Trial) startLedgerSampler(ctx context.Context) *ledgerSampler {
	c := t.WorkloadConfig
	summer, ok := t.DB.(driver.LedgerSummer)
	if !ok || c.Ledger.AuditEvery <= 0 || t.Settings.Run.Phase != runner.Transactions || t.Settings.Shared {
		return nil
	}
	n := c.EffectiveInsertCount()
	l := &ledgerSampler{db: summer, table: c.Table, field: c.BalanceField(), accounts: n, expected: n * c.Ledger.Balance,
		floor: c.Ledger.Floor, every: c.Ledger.AuditEvery, start: time.Now()}
	ctx, l.cancel = context.WithCancel(ctx)
	l.done.Add(1)
	go l.run(ctx)
	return l
}

func (l *ledgerSampler) run(ctx context.Context) {
	defer l.done.Done()
	tick := time.NewTicker(l.every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		sum, err := l.db.SumBalances(ctx, l.table, l.field, l.floor)
		switch {
		case ctx.Err() != nil:
			return // cut short by the run's end: no snapshot
		case driver.Classify(err) == driver.ClassUnsupported:
			// The deployment cannot take one (a Redis cluster): said
			// once, not counted as a failure every interval.
			l.rec.NotJudged = err.Error()
			return
		case err != nil:
			l.rec.Failed++
			continue
		case sum.Accounts != l.accounts:
			// Rows the ledger did not load (another range's, or a load
			// cut short): the sum cannot be judged against what was
			// loaded; the audit after the run reads the accounts alone.
			l.rec.NotJudged = fmt.Sprintf("the table holds %d rows and the ledger %d accounts", sum.Accounts, l.accounts)
			return
		}
		l.rec.Taken++
		if sum.Total != l.expected || sum.BelowFloor > 0 {
			l.rec.Broken++
			if l.rec.First == "" {
				l.rec.First = fmt.Sprintf("at %.1fs: total %d (loaded %d, difference %+d), %d below the floor %d",
					time.Since(l.start).Seconds(), sum.Total, l.expected, sum.Total-l.expected, sum.BelowFloor, l.floor)
			}
		}
	}
}

// stop ends the sampling and returns what it took (nil for a sampler
// that never was).
func (l *ledgerSampler) stop() *results.LedgerSnapshots {
	if l == nil {
		return nil
	}
	l.cancel()
	l.done.Wait()
	return &l.rec
}

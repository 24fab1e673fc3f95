package cql

import (
	"context"
	"strconv"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/dbarena/dbarena/driver"
)

var (
	_ driver.Transferer    = (*session)(nil)
	_ driver.BalanceReader = (*session)(nil)
)

// creditTimeout bounds a credit that runs on after its run was stopped:
// once the payer is debited, stopping between the two steps would lose
// the money.
const creditTimeout = 30 * time.Second

// maxCASTries bounds the compare-and-set rounds of one side of a
// transfer: each lost to a concurrent transfer reads the account again.
const maxCASTries = 50

// Transfer implements driver.Transferer with lightweight transactions,
// and so with a weaker guarantee than a database with multi-row
// transactions gives: each account's update is a compare-and-set
// (UPDATE ... IF field = the balance read at SERIAL), linearizable on
// its own, but no Cassandra statement updates two partitions
// atomically. The transfer debits the payer first, declining when its
// balance would go below the floor, then credits the receiver. Between
// the two the money is in flight: a reader sees it in neither account,
// and a failure there (a timeout whose outcome is unknown, the process
// killed) loses it, which the ledger's audit reports. Rounds lost to
// concurrent transfers count in cql.lwt.not_applied.
func (s *session) Transfer(ctx context.Context, table string, t driver.Transfer) error {
	if err := t.Valid(); err != nil {
		return err
	}
	ks := s.db.cfg.Keyspace
	read := "SELECT " + t.Field + " FROM " + ks + "." + table + " WHERE " + KeyColumn + " = ?"
	cas := "UPDATE " + ks + "." + table + " SET " + t.Field + " = ? WHERE " + KeyColumn + " = ? IF " + t.Field + " = ?"
	debit := func(b int64) (int64, error) {
		if b-t.Amount < t.Floor {
			return 0, driver.ErrDeclined
		}
		return b - t.Amount, nil
	}
	if err := s.compareAndSet(ctx, table, read, cas, t.From, debit); err != nil {
		return err
	}
	credit := func(b int64) (int64, error) { return b + t.Amount, nil }
	// The debit applied: the credit is not cut short by the run's stop.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), creditTimeout)
	defer cancel()
	if err := s.compareAndSet(cctx, table, read, cas, t.To, credit); err != nil {
		return driver.Errorf(driver.Classify(err), "cql transfer: %s was debited %d but the credit to %s failed, the money is in flight (an LWT spans one partition): %w",
			t.From, t.Amount, t.To, err)
	}
	return nil
}

// Balance implements driver.BalanceReader: a read at the serial
// consistency (cql.serial.consistency), which sees every applied
// lightweight transaction whatever cql.consistency.read says.
func (s *session) Balance(ctx context.Context, table, key, field string) ([]byte, error) {
	var v string
	err := s.db.session.Query("SELECT "+field+" FROM "+s.db.cfg.Keyspace+"."+table+" WHERE "+KeyColumn+" = ?", key).
		Consistency(s.db.cfg.Serial).ScanContext(ctx, &v)
	switch {
	case err == gocql.ErrNotFound:
		return nil, driver.ErrNotFound
	case err != nil:
		return nil, opError(ctx, "read", table, key, err)
	}
	return []byte(v), nil
}

// compareAndSet reads key's balance at SERIAL consistency and writes
// next(balance) on the condition that it is unchanged, again until the
// condition holds. next may refuse (a declined debit).
func (s *session) compareAndSet(ctx context.Context, table, read, cas, key string, next func(int64) (int64, error)) error {
	cfg := &s.db.cfg
	for try := 0; try < maxCASTries; try++ {
		var was string
		err := s.db.session.Query(read, key).Consistency(cfg.Serial).ScanContext(ctx, &was)
		switch {
		case err == gocql.ErrNotFound:
			return driver.ErrNotFound
		case err != nil:
			return opError(ctx, "transfer", table, key, err)
		}
		b, err := strconv.ParseInt(was, 10, 64)
		if err != nil {
			return driver.Errorf(driver.ClassError, "account %s: balance %.20q is not an integer", key, was)
		}
		now, err := next(b)
		if err != nil {
			return err
		}
		applied, err := s.db.session.Query(cas, strconv.FormatInt(now, 10), key, was).
			Consistency(cfg.Write).SerialConsistency(cfg.Serial).
			MapScanCASContext(ctx, map[string]any{})
		if err != nil {
			return opError(ctx, "transfer", table, key, err)
		}
		if applied {
			return nil
		}
		s.db.notApplied.Add(1)
	}
	return driver.Errorf(driver.ClassConflict, "cql: account %s changed under each of %d compare-and-set rounds", key, maxCASTries)
}

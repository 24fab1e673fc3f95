// Package driver defines the contract between the runner and a database
// binding: a small core interface with YCSB's five operations, optional
// capabilities found by type assertion, and error classes that let every
// binding report failures the same way.
//
// Drivers never time themselves: the runner measures every call through one
// code path, so latency means the same thing for every database.
package driver

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"strconv"
	"time"

	"github.com/dbarena/dbarena/record"
)

// Params is what a driver is opened with.
type Params struct {
	// Props holds every property of the run (YCSB style). A driver reads the
	// keys under its own prefix ("postgres.url") and may read core ones such
	// as "table" or "fieldcount".
	Props map[string]string
	// Workers is the number of sessions the runner will open; drivers size
	// their connection pools from it by default.
	Workers int
	// FirstWorker is the trial's number of this process's first worker:
	// a trial split over several load generators numbers its workers
	// across them, and a driver that spreads workers over nodes
	// (postgres.hosts) spreads the trial's, not each process's alike (3
	// loaders of 2 workers on 3 nodes would leave the third idle).
	FirstWorker int
	// Logger receives the driver's own diagnostics; nothing is logged per
	// operation.
	Logger *slog.Logger
}

// Log is the logger the driver logs to: Logger, or one that discards
// when none was given.
func (p Params) Log() *slog.Logger {
	if p.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return p.Logger
}

// Opener opens a database handle shared by all workers.
type Opener func(ctx context.Context, p Params) (DB, error)

// DB is an opened database binding, safe for concurrent use.
type DB interface {
	// Session returns the handle one worker uses for all its operations. A
	// session is used by one goroutine at a time.
	Session(ctx context.Context, worker int) (Session, error)
	// Close releases everything the DB holds. Sessions are closed first.
	Close() error
}

// Session performs YCSB operations for one worker.
//
// Keys, field names and values passed in are valid only for the duration of
// the call; a driver that keeps them must copy them. Results are appended to
// the caller's dst slices so that steady-state operation does not allocate.
type Session interface {
	// Read fetches the given fields of one record (all fields when fields is
	// nil) and appends them to dst[:0]. A missing record is ErrNotFound.
	Read(ctx context.Context, table, key string, fields []string, dst record.Record) (record.Record, error)
	// Scan reads up to count records in key order starting at startKey.
	Scan(ctx context.Context, table, startKey string, count int, fields []string, dst []record.Record) ([]record.Record, error)
	// Update overwrites the given fields of an existing record.
	Update(ctx context.Context, table, key string, values record.Record) error
	// Insert writes a new record.
	Insert(ctx context.Context, table, key string, values record.Record) error
	// Delete removes a record.
	Delete(ctx context.Context, table, key string) error
	// Close releases the session.
	Close() error
}

// BatchInserter is implemented by sessions that can insert many records in
// one round trip; the load phase uses it when batchsize > 1.
type BatchInserter interface {
	InsertBatch(ctx context.Context, table string, keys []string, values []record.Record) error
}

// Transferer is implemented by sessions that can move an amount between
// two records' balances as one transaction: the ledger workload
// (transferproportion). A balance is a field holding a decimal integer.
// The transfer reads both balances, and writes From's less Amount and
// To's plus Amount only when From's would stay at or above Floor;
// otherwise it writes nothing and returns ErrDeclined. Whatever runs
// beside it, the balances must still sum to what they summed to before:
// how a driver achieves that (a transaction with row locks, compare and
// set, MULTI/EXEC) and what it cannot promise is in its docs page.
type Transferer interface {
	Transfer(ctx context.Context, table string, t Transfer) error
}

// Transfer is one transfer: Amount from From's Field to To's.
type Transfer struct {
	From, To, Field string
	Amount, Floor   int64
}

// Apply is the transfer's rule, for drivers that read both balances and
// write them back: the balances after it, from the balances before
// (decimal text). It returns ErrDeclined when the payer would go below
// the floor, a ClassBadRequest error for a transfer to the payer
// itself, and a ClassError error for a balance that is not an integer
// or a sum that would overflow.
func (t Transfer) Apply(from, to []byte) (newFrom, newTo int64, err error) {
	if err := t.Valid(); err != nil {
		return 0, 0, err
	}
	f, err := parseBalance(t.From, from)
	if err != nil {
		return 0, 0, err
	}
	g, err := parseBalance(t.To, to)
	if err != nil {
		return 0, 0, err
	}
	if f-t.Amount < t.Floor || f < math.MinInt64+t.Amount {
		return f, g, ErrDeclined
	}
	if g > math.MaxInt64-t.Amount {
		return f, g, Errorf(ClassError, "transfer to %s: balance %d plus %d overflows", t.To, g, t.Amount)
	}
	return f - t.Amount, g + t.Amount, nil
}

// Valid refuses a transfer from an account to itself (ClassBadRequest):
// written back as two balances, it would make money.
func (t Transfer) Valid() error {
	if t.From == t.To {
		return Errorf(ClassBadRequest, "transfer from %s to itself: a transfer needs two accounts", t.From)
	}
	return nil
}

// parseBalance reads one account's balance.
func parseBalance(key string, v []byte) (int64, error) {
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return 0, Errorf(ClassError, "account %s: balance %.20q is not an integer", key, v)
	}
	return n, nil
}

// Locked gathers the rows a transfer's locking read returned (key and
// balance, in any order), for the SQL drivers that lock both accounts
// and then apply the transfer.
type Locked struct {
	from, to []byte
	rows     int
}

// Add records one row of the read.
func (l *Locked) Add(t Transfer, key string, balance []byte) {
	switch key {
	case t.From:
		l.from = balance
	case t.To:
		l.to = balance
	}
	l.rows++
}

// Apply is t.Apply on the balances read: ErrNotFound unless both
// accounts were.
func (l *Locked) Apply(t Transfer) (newFrom, newTo int64, err error) {
	if l.rows < 2 {
		return 0, 0, ErrNotFound
	}
	return t.Apply(l.from, l.to)
}

// BalanceReader is implemented by sessions whose ordinary reads may be
// stale (eventually consistent, or below a quorum): Balance reads an
// account's latest balance, and the ledger's audit reads with it.
type BalanceReader interface {
	Balance(ctx context.Context, table, key, field string) ([]byte, error)
}

// LedgerSummer is implemented by DBs that read every balance of a table
// in one consistent snapshot (one SQL statement sees one), on a
// connection of their own beside the workers' sessions: the ledger's
// audits during its run, which reads record by record could not be
// while transfers move money between them.
type LedgerSummer interface {
	SumBalances(ctx context.Context, table, field string, floor int64) (LedgerSum, error)
}

// LedgerSum is one snapshot of a table's balances: its rows, their sum,
// and how many are below the floor.
type LedgerSum struct {
	Accounts, Total, BelowFloor int64
}

// ErrDeclined is a transfer refused because it would take its payer
// below the floor: a correct outcome of the transaction, not a failure.
var ErrDeclined = errors.New("transfer declined: the payer's balance would go below the floor")

// InProcess is implemented by a DB that keeps its records in the memory
// of the process that opened it, such as the memory driver. Every process
// starts with an empty one, so a run phase in a process that did not
// load it finds nothing: the caller checks Len before running and refuses
// rather than measure a run of NOT_FOUNDs.
type InProcess interface {
	// Len returns the number of records in table.
	Len(table string) int
}

// CloseWithin closes db, giving up after d: a driver that waits for
// connections a frozen server holds must not hold the process, which
// ends the abandoned Close with it. It reports whether Close returned in
// time; its error is of no use at the end of a run.
func CloseWithin(db DB, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		_ = db.Close()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

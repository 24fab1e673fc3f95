package memory

import (
	"context"
	"strconv"

	"github.com/dbarena/dbarena/driver"
)

var _ driver.Transferer = (*session)(nil)

// Transfer implements driver.Transferer under the table's lock: both
// balances are read and written with no other operation between.
func (s *session) Transfer(_ context.Context, tbl string, tr driver.Transfer) error {
	t := s.table(tbl)
	t.mu.Lock()
	defer t.mu.Unlock()
	from, ok := t.tree.Get(&item{key: tr.From})
	if !ok {
		return driver.ErrNotFound
	}
	to, ok := t.tree.Get(&item{key: tr.To})
	if !ok {
		return driver.ErrNotFound
	}
	fv, _ := from.rec.Get(tr.Field)
	tv, _ := to.rec.Get(tr.Field)
	f, g, err := tr.Apply(fv, tv)
	if err != nil {
		return err
	}
	set(from, tr.Field, f)
	set(to, tr.Field, g)
	return nil
}

// set writes a balance into an account's field, which Transfer found.
func set(it *item, field string, balance int64) {
	for i := range it.rec {
		if it.rec[i].Name == field {
			it.rec[i].Value = strconv.AppendInt(it.rec[i].Value[:0], balance, 10)
			return
		}
	}
}

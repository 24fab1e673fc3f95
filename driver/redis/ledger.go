package redis

import (
	"context"
	"strconv"

	"github.com/dbarena/dbarena/driver"
)

var _ driver.Transferer = (*session)(nil)

// transferScript moves ARGV[2] from KEYS[1]'s field ARGV[1] to KEYS[2]'s
// unless the payer would go below ARGV[3]. It returns 1 when it moved
// the money, 0 when it declined, -1 for a missing account or field, -2
// for a balance that is not a decimal integer (as the audit reads it),
// -3 for a transfer to the payer itself. Lua numbers are doubles: the
// ledger's workload keeps balances below 2^50, where they are exact, and
// string.format('%d') writes them back without an exponent.
const transferScript = `
if KEYS[1] == KEYS[2] then return -3 end
local f = redis.call('HGET', KEYS[1], ARGV[1])
local t = redis.call('HGET', KEYS[2], ARGV[1])
if not f or not t then return -1 end
if not string.match(f, '^%-?%d+$') or not string.match(t, '^%-?%d+$') then return -2 end
local fb, tb = tonumber(f), tonumber(t)
local amount, floor = tonumber(ARGV[2]), tonumber(ARGV[3])
if fb - amount < floor then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], string.format('%d', fb - amount))
redis.call('HSET', KEYS[2], ARGV[1], string.format('%d', tb + amount))
return 1
`

// Transfer implements driver.Transferer with a Lua script: Redis runs a
// script with no other command between its calls, so the read, the
// check and both writes are one atomic step, in one round trip (MULTI
// with WATCH gives the same outcome with a retry on every conflict).
// In a cluster two accounts are in different hash slots and no command
// or script spans slots: a ledger is refused there.
func (s *session) Transfer(_ context.Context, table string, t driver.Transfer) error {
	ctx := context.Background() // never cancelled: see DB.Session
	if s.db.cfg.Cluster {
		return driver.Errorf(driver.ClassUnsupported, "redis cluster: a transfer's two accounts are in different hash slots, and Redis has no atomic step across slots; run the ledger on a single node")
	}
	n, err := s.db.transfer.Exec(ctx, s.c, []string{t.From, t.To},
		[]string{t.Field, strconv.FormatInt(t.Amount, 10), strconv.FormatInt(t.Floor, 10)}).AsInt64()
	switch {
	case err != nil:
		return classify(err)
	case n == 0:
		return driver.ErrDeclined
	case n == -1:
		return driver.ErrNotFound
	case n == -2:
		return driver.Errorf(driver.ClassError, "transfer %s -> %s: a balance is not an integer", t.From, t.To)
	case n == -3:
		return driver.Errorf(driver.ClassBadRequest, "transfer from %s to itself: a transfer needs two accounts", t.From)
	}
	return nil
}

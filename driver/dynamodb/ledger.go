package dynamodb

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dbarena/dbarena/driver"
)

var (
	_ driver.Transferer    = (*session)(nil)
	_ driver.BalanceReader = (*session)(nil)
	_ driver.LedgerSummer  = (*DB)(nil)
)

// maxSnapshotItems is how many items one TransactGetItems reads: a
// ledger of more accounts cannot be read in one snapshot.
const maxSnapshotItems = 100

// maxTransferTries bounds a transfer's read-and-write rounds: each lost
// to a concurrent transfer of the same accounts reads them again.
const maxTransferTries = 50

// Transfer implements driver.Transferer: a strongly consistent read of
// both balances, then one TransactWriteItems that writes both on the
// condition that each still holds what was read. DynamoDB applies both
// updates or neither; when another transfer changed an account in
// between, the transaction is cancelled and the transfer reads again
// (counted in dynamodb.transfer_retries) after a jittered backoff, up to
// maxTransferTries rounds; a transaction cancelled for any other reason
// (throttled, invalid) is that error. A declined transfer writes
// nothing: the balance it saw was the account's latest.
func (s *session) Transfer(ctx context.Context, table string, t driver.Transfer) error {
	if err := t.Valid(); err != nil {
		return err
	}
	for try := 0; try < maxTransferTries; try++ {
		if try > 0 {
			s.db.acct.transferRetries.Add(1)
			// 2 ms doubling to 100 ms: a lost race, not throttling.
			if err := s.backoff(ctx, 2*time.Millisecond, 100*time.Millisecond, try-1); err != nil {
				return s.db.opError("transfer", table, err)
			}
		}
		from, err := s.balance(ctx, table, t.From, t.Field)
		if err != nil {
			return err
		}
		to, err := s.balance(ctx, table, t.To, t.Field)
		if err != nil {
			return err
		}
		f, g, err := t.Apply([]byte(from), []byte(to))
		if err != nil {
			return err
		}
		_, err = s.c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			TransactItems: []types.TransactWriteItem{
				s.setIf(table, t.From, t.Field, from, f),
				s.setIf(table, t.To, t.Field, to, g),
			},
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		})
		if err == nil {
			return nil
		}
		if !lostRace(err) {
			return s.db.opError("transfer", table, err)
		}
	}
	return driver.Errorf(driver.ClassConflict, "dynamodb transfer %s -> %s: other transfers changed the accounts in each of %d rounds", t.From, t.To, maxTransferTries)
}

// lostRace reports whether a transaction was cancelled only because
// another changed its items first: a condition on a balance read before
// failed, or a concurrent transaction held an item.
func lostRace(err error) bool {
	if apiCode(err) == "TransactionConflictException" {
		return true
	}
	var cancelled *types.TransactionCanceledException
	if !errors.As(err, &cancelled) || len(cancelled.CancellationReasons) == 0 {
		return false
	}
	for _, r := range cancelled.CancellationReasons {
		switch aws.ToString(r.Code) {
		case "None", "ConditionalCheckFailed", "TransactionConflict":
		default:
			return false
		}
	}
	return true
}

// Balance implements driver.BalanceReader: the ledger's audit reads with
// strongly consistent reads whatever dynamodb.consistentreads says.
func (s *session) Balance(ctx context.Context, table, key, field string) ([]byte, error) {
	v, err := s.balance(ctx, table, key, field)
	return []byte(v), err
}

// balance reads one account's balance with a strongly consistent read.
func (s *session) balance(ctx context.Context, table, key, field string) (string, error) {
	out, err := s.c.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:                &table,
		Key:                      map[string]types.AttributeValue{s.pk: &types.AttributeValueMemberS{Value: key}},
		ConsistentRead:           aws.Bool(true),
		ProjectionExpression:     aws.String("#b"),
		ExpressionAttributeNames: map[string]string{"#b": field},
		ReturnConsumedCapacity:   types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		return "", s.db.opError("transfer", table, err)
	}
	v, ok := out.Item[field].(*types.AttributeValueMemberS)
	if out.Item == nil || !ok {
		return "", driver.ErrNotFound
	}
	return v.Value, nil
}

// setIf is the update of one account in a transfer's transaction: its
// new balance, on the condition that it still holds the one read.
func (s *session) setIf(table, key, field, was string, now int64) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                &table,
		Key:                      map[string]types.AttributeValue{s.pk: &types.AttributeValueMemberS{Value: key}},
		UpdateExpression:         aws.String("SET #b = :now"),
		ConditionExpression:      aws.String("#b = :was"),
		ExpressionAttributeNames: map[string]string{"#b": field},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":now": &types.AttributeValueMemberS{Value: strconv.FormatInt(now, 10)},
			":was": &types.AttributeValueMemberS{Value: was},
		},
	}}
}

// SumBalances implements driver.LedgerSummer for a ledger of at most
// maxSnapshotItems accounts: it lists the accounts' keys (a transfer
// never adds or removes one), then reads every balance in one
// TransactGetItems, which DynamoDB serializes with the transfers'
// TransactWriteItems: one snapshot. A read cancelled by a transfer in
// flight is read again, up to maxTransferTries rounds. It asks for no
// consumed capacity, so that the audit stays out of the trial's bill
// (it costs 2 read units an account a snapshot). More accounts are
// refused as unsupported: the audit after the run reads them then.
func (db *DB) SumBalances(ctx context.Context, table, field string, floor int64) (driver.LedgerSum, error) {
	keys, err := db.accountKeys(ctx, table)
	if err != nil {
		return driver.LedgerSum{}, err
	}
	items := make([]types.TransactGetItem, len(keys))
	for i, k := range keys {
		items[i] = types.TransactGetItem{Get: &types.Get{TableName: &table,
			Key:                      map[string]types.AttributeValue{db.cfg.PrimaryKey: &types.AttributeValueMemberS{Value: k}},
			ProjectionExpression:     aws.String("#b"),
			ExpressionAttributeNames: map[string]string{"#b": field}}}
	}
	if len(items) == 0 {
		return driver.LedgerSum{}, nil
	}
	var out *dynamodb.TransactGetItemsOutput
	for try := 0; ; try++ {
		out, err = db.client.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: items})
		if err == nil {
			break
		}
		if !lostRace(err) || try+1 == maxTransferTries {
			return driver.LedgerSum{}, db.opError("ledger snapshot", table, err)
		}
		select {
		case <-ctx.Done():
			return driver.LedgerSum{}, ctx.Err()
		case <-time.After(time.Duration(try+1) * time.Millisecond):
		}
	}
	sum := driver.LedgerSum{Accounts: int64(len(keys))}
	for i, r := range out.Responses {
		v, ok := r.Item[field].(*types.AttributeValueMemberS)
		var b int64
		if ok {
			b, err = strconv.ParseInt(v.Value, 10, 64)
		}
		if !ok || err != nil {
			return driver.LedgerSum{}, driver.Errorf(driver.ClassError, "ledger snapshot: the balance %s of %s is missing or not an integer", field, keys[i])
		}
		sum.Total += b
		if b < floor {
			sum.BelowFloor++
		}
	}
	return sum, nil
}

// accountKeys lists a ledger table's keys with a strongly consistent
// scan of the key attribute only, refusing a ledger of more than
// maxSnapshotItems accounts.
func (db *DB) accountKeys(ctx context.Context, table string) ([]string, error) {
	var keys []string
	in := &dynamodb.ScanInput{TableName: &table, ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String("#k"), ExpressionAttributeNames: map[string]string{"#k": db.cfg.PrimaryKey}}
	for {
		out, err := db.client.Scan(ctx, in)
		if err != nil {
			return nil, db.opError("ledger snapshot", table, err)
		}
		for _, it := range out.Items {
			if k, ok := it[db.cfg.PrimaryKey].(*types.AttributeValueMemberS); ok {
				keys = append(keys, k.Value)
			}
		}
		if len(keys) > maxSnapshotItems {
			return nil, driver.Errorf(driver.ClassUnsupported, "dynamodb: one transaction reads at most %d items, and this ledger holds more accounts: no snapshot of every balance during the run (the audit after it reads each)", maxSnapshotItems)
		}
		if len(out.LastEvaluatedKey) == 0 {
			return keys, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

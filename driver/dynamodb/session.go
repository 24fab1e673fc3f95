package dynamodb

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/record"
)

// session performs one worker's operations. It keeps one request struct
// per operation and the attribute-value maps and members they point to,
// and refills them on every call: the SDK serializes a request before the
// call returns and keeps nothing of it, so reuse is safe and saves the
// maps and boxes a fresh request would allocate.
type session struct {
	db    *DB
	c     *dynamodb.Client
	pk    string
	cond  bool
	exprs *exprCache
	rng   *rand.Rand

	table  string
	keyVal types.AttributeValueMemberS
	key    map[string]types.AttributeValue
	item   map[string]types.AttributeValue
	values map[string]types.AttributeValue
	vals   []types.AttributeValueMemberS
	limit  int32

	get   dynamodb.GetItemInput
	scan  dynamodb.ScanInput
	put   dynamodb.PutItemInput
	upd   dynamodb.UpdateItemInput
	del   dynamodb.DeleteItemInput
	batch batchBuf
}

var (
	_ driver.Session       = (*session)(nil)
	_ driver.BatchInserter = (*session)(nil)
)

func newSession(db *DB, worker int) *session {
	cfg := &db.cfg
	s := &session{
		db: db, c: db.client, pk: cfg.PrimaryKey, cond: cfg.ConditionalWrites,
		exprs: newExprCache(cfg.PrimaryKey, cfg.ConditionalWrites),
		// Jitter for the batch backoff only; nothing measured depends on it.
		rng:    rand.New(rand.NewPCG(uint64(worker), uint64(time.Now().UnixNano()))),
		item:   make(map[string]types.AttributeValue),
		values: make(map[string]types.AttributeValue),
	}
	s.key = map[string]types.AttributeValue{cfg.PrimaryKey: &s.keyVal}
	total := types.ReturnConsumedCapacityTotal
	consistent := aws.Bool(cfg.ConsistentReads)
	s.get = dynamodb.GetItemInput{TableName: &s.table, Key: s.key, ConsistentRead: consistent, ReturnConsumedCapacity: total}
	s.scan = dynamodb.ScanInput{TableName: &s.table, Limit: &s.limit, ConsistentRead: consistent, ReturnConsumedCapacity: total}
	s.put = dynamodb.PutItemInput{TableName: &s.table, Item: s.item, ReturnConsumedCapacity: total}
	s.upd = dynamodb.UpdateItemInput{TableName: &s.table, Key: s.key, ExpressionAttributeValues: s.values, ReturnConsumedCapacity: total}
	s.del = dynamodb.DeleteItemInput{TableName: &s.table, Key: s.key, ReturnConsumedCapacity: total}
	if s.cond {
		keyNames := map[string]string{keyName: cfg.PrimaryKey}
		s.put.ConditionExpression, s.put.ExpressionAttributeNames = aws.String(condKeyMissing), keyNames
		s.del.ConditionExpression, s.del.ExpressionAttributeNames = aws.String(condKeyExists), keyNames
		s.upd.ConditionExpression = aws.String(condKeyExists)
	}
	s.batch.init(cfg.PrimaryKey)
	return s
}

// Close implements driver.Session.
func (s *session) Close() error { return nil }

// members returns n reusable string members. Maps that pointed into an
// older, smaller array are cleared before they are filled again.
func (s *session) members(n int) []types.AttributeValueMemberS {
	if cap(s.vals) < n {
		s.vals = make([]types.AttributeValueMemberS, n)
	}
	return s.vals[:n]
}

// setProjection points a request at the projection of fields, or at none
// for all fields.
func (s *session) setProjection(expr **string, names *map[string]string, fields []string) {
	if fields == nil {
		*expr, *names = nil, nil
		return
	}
	p := s.exprs.projection(fields)
	*expr, *names = &p.expr, p.names
}

// Read implements driver.Session with GetItem.
func (s *session) Read(ctx context.Context, table, key string, fields []string, dst record.Record) (record.Record, error) {
	s.table, s.keyVal.Value = table, key
	s.setProjection(&s.get.ProjectionExpression, &s.get.ExpressionAttributeNames, fields)
	out, err := s.c.GetItem(ctx, &s.get)
	if err != nil {
		return dst[:0], s.db.opError("read", table, err)
	}
	if out.Item == nil {
		return dst[:0], driver.ErrNotFound
	}
	return s.appendItem(dst[:0], out.Item, fields), nil
}

// Scan implements driver.Session as YCSB's binding does: GetItem of the
// start key (when inclusivescan is on), then Scan pages from it with
// ExclusiveStartKey until count records are read or the table ends. The
// records follow the start key in DynamoDB's hash order, not key order.
func (s *session) Scan(ctx context.Context, table, startKey string, count int, fields []string, dst []record.Record) ([]record.Record, error) {
	dst = dst[:0]
	if count <= 0 {
		return dst, nil
	}
	if s.db.cfg.InclusiveScan {
		n := len(dst)
		dst = grow(dst)
		rec, err := s.Read(ctx, table, startKey, fields, dst[n])
		dst[n] = rec
		switch {
		case err == nil:
		case errors.Is(err, driver.ErrNotFound):
			dst = dst[:n]
		default:
			return dst[:n], err
		}
	}
	s.table, s.keyVal.Value = table, startKey
	in := &s.scan
	in.ExclusiveStartKey = s.key
	s.setProjection(&in.ProjectionExpression, &in.ExpressionAttributeNames, fields)
	for len(dst) < count {
		s.limit = int32(count - len(dst))
		out, err := s.c.Scan(ctx, in)
		if err != nil {
			return dst, s.db.opError("scan", table, err)
		}
		for _, item := range out.Items {
			if len(dst) >= count {
				break
			}
			n := len(dst)
			dst = grow(dst)
			dst[n] = s.appendItem(dst[n][:0], item, fields)
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	return dst, nil
}

// grow extends dst by one record, reusing the slot's buffers when it can.
func grow(dst []record.Record) []record.Record {
	if n := len(dst); n < cap(dst) {
		return dst[:n+1]
	}
	return append(dst, nil)
}

// Update implements driver.Session with UpdateItem SET of the given
// fields. With conditional writes a missing key is ErrNotFound; without,
// the update creates the item, as YCSB's binding does.
func (s *session) Update(ctx context.Context, table, key string, values record.Record) error {
	if len(values) == 0 {
		return nil
	}
	u := s.exprs.update(values)
	s.table, s.keyVal.Value = table, key
	clear(s.values)
	vals := s.members(len(values))
	for i := range values {
		vals[i].Value = string(values[i].Value)
		s.values[u.values[i]] = &vals[i]
	}
	s.upd.UpdateExpression, s.upd.ExpressionAttributeNames = &u.expr, u.names
	if _, err := s.c.UpdateItem(ctx, &s.upd); err != nil {
		if s.cond && apiCode(err) == codeConditionFailed {
			return driver.ErrNotFound
		}
		return s.db.opError("update", table, err)
	}
	return nil
}

// Insert implements driver.Session with PutItem. With conditional writes
// an existing key is a CONFLICT, as a primary-key violation is in SQL;
// without, the put replaces the item, as YCSB's binding does.
func (s *session) Insert(ctx context.Context, table, key string, values record.Record) error {
	s.table, s.keyVal.Value = table, key
	clear(s.item)
	vals := s.members(len(values))
	for i := range values {
		vals[i].Value = string(values[i].Value)
		s.item[values[i].Name] = &vals[i]
	}
	s.item[s.pk] = &s.keyVal
	if _, err := s.c.PutItem(ctx, &s.put); err != nil {
		if s.cond && apiCode(err) == codeConditionFailed {
			return driver.Errorf(driver.ClassConflict, "dynamodb insert %s/%s: key exists", table, key)
		}
		return s.db.opError("insert", table, err)
	}
	return nil
}

// Delete implements driver.Session with DeleteItem. With conditional
// writes a missing key is ErrNotFound; without, deleting it succeeds.
func (s *session) Delete(ctx context.Context, table, key string) error {
	s.table, s.keyVal.Value = table, key
	if _, err := s.c.DeleteItem(ctx, &s.del); err != nil {
		if s.cond && apiCode(err) == codeConditionFailed {
			return driver.ErrNotFound
		}
		return s.db.opError("delete", table, err)
	}
	return nil
}

// appendItem appends the fields of an item to dst: the wanted ones in the
// order asked, or every attribute but the key.
func (s *session) appendItem(dst record.Record, item map[string]types.AttributeValue, fields []string) record.Record {
	if fields != nil {
		for _, f := range fields {
			if v, ok := item[f]; ok {
				dst = appendValue(dst, f, v)
			}
		}
		return dst
	}
	for name, v := range item {
		if name != s.pk {
			dst = appendValue(dst, name, v)
		}
	}
	return dst
}

// appendValue appends one attribute, reusing the slot's value buffer.
// YCSB writes strings; binary values (go-ycsb's layout) and numbers are
// read as their bytes, and other types are not YCSB fields and skipped.
func appendValue(dst record.Record, name string, v types.AttributeValue) record.Record {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return appendString(dst, name, v.Value)
	case *types.AttributeValueMemberB:
		return dst.Append(name, v.Value)
	case *types.AttributeValueMemberN:
		return appendString(dst, name, v.Value)
	}
	return dst
}

func appendString(dst record.Record, name, v string) record.Record {
	n := len(dst)
	if n < cap(dst) {
		dst = dst[:n+1]
		dst[n].Name = name
		dst[n].Value = append(dst[n].Value[:0], v...)
		return dst
	}
	return append(dst, record.Field{Name: name, Value: []byte(v)})
}

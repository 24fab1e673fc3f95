package dynamodb_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/record"
)

// item is a GetItem answer with a key and two fields.
const item = `{"Item":{"YCSB_KEY":{"S":"user1"},"field1":{"S":"one"},"field3":{"S":"three"}},
	"ConsumedCapacity":{"TableName":"usertable","CapacityUnits":0.5}}`

func TestReadRequest(t *testing.T) {
	for _, consistent := range []bool{false, true} {
		f := newFakeServer(t, func(op string, _ int, _ map[string]any) (int, string) {
			if op == "GetItem" {
				return 200, item
			}
			return 0, ""
		})
		props := []string{}
		if consistent {
			props = []string{"dynamodb.consistentreads", "true"}
		}
		db := f.open(t, props...)
		sess := session(t, db)
		ctx := context.Background()
		got, err := sess.Read(ctx, "usertable", "user1", nil, nil)
		require.NoError(t, err)
		require.True(t, record.Equal(record.Record{{Name: "field1", Value: []byte("one")}, {Name: "field3", Value: []byte("three")}}, got),
			"every attribute but the key: %v", got)
		got, err = sess.Read(ctx, "usertable", "user1", []string{"field3", "field1"}, got)
		require.NoError(t, err)
		require.Equal(t, "field3", got[0].Name, "fields in the order asked")

		sent := f.sent("GetItem")
		require.Len(t, sent, 2)
		for _, req := range sent {
			require.Equal(t, consistent, req["ConsistentRead"], "ConsistentRead follows dynamodb.consistentreads")
			require.Equal(t, "TOTAL", req["ReturnConsumedCapacity"])
			require.Equal(t, "usertable", req["TableName"])
			require.Equal(t, map[string]any{"YCSB_KEY": map[string]any{"S": "user1"}}, req["Key"])
		}
		require.NotContains(t, sent[0], "ProjectionExpression", "all fields: no projection")
		require.Equal(t, "#f0, #f1", sent[1]["ProjectionExpression"])
		require.Equal(t, map[string]any{"#f0": "field3", "#f1": "field1"}, sent[1]["ExpressionAttributeNames"])
		require.EqualValues(t, 1, counters(db)["dynamodb.consumed_rcu"])
	}
}

func TestReadMissingItem(t *testing.T) {
	f := newFakeServer(t, nil)
	_, err := session(t, f.open(t)).Read(context.Background(), "usertable", "nope", nil, nil)
	require.ErrorIs(t, err, driver.ErrNotFound)
}

func TestWriteRequests(t *testing.T) {
	values := record.Record{{Name: "field2", Value: []byte("two")}, {Name: "field7", Value: []byte("seven")}}
	key := map[string]any{"YCSB_KEY": map[string]any{"S": "user9"}}
	for _, conditional := range []bool{true, false} {
		f := newFakeServer(t, nil)
		props := []string{"dynamodb.primaryKey", "YCSB_KEY"} // YCSB's spelling
		if !conditional {
			props = append(props, "dynamodb.conditionalwrites", "false")
		}
		sess := session(t, f.open(t, props...))
		ctx := context.Background()
		require.NoError(t, sess.Insert(ctx, "usertable", "user9", values))
		require.NoError(t, sess.Update(ctx, "usertable", "user9", values[1:]))
		require.NoError(t, sess.Delete(ctx, "usertable", "user9"))

		put := f.sent("PutItem")[0]
		require.Equal(t, map[string]any{"YCSB_KEY": map[string]any{"S": "user9"},
			"field2": map[string]any{"S": "two"}, "field7": map[string]any{"S": "seven"}}, put["Item"],
			"one string attribute per field, as YCSB writes")
		upd := f.sent("UpdateItem")[0]
		require.Equal(t, key, upd["Key"])
		require.Equal(t, "SET #f0 = :v0", upd["UpdateExpression"])
		require.Equal(t, map[string]any{":v0": map[string]any{"S": "seven"}}, upd["ExpressionAttributeValues"])
		del := f.sent("DeleteItem")[0]
		require.Equal(t, key, del["Key"])
		for _, req := range []map[string]any{put, upd, del} {
			require.Equal(t, "TOTAL", req["ReturnConsumedCapacity"])
		}
		if conditional {
			require.Equal(t, "attribute_not_exists(#k)", put["ConditionExpression"])
			require.Equal(t, map[string]any{"#k": "YCSB_KEY"}, put["ExpressionAttributeNames"])
			require.Equal(t, "attribute_exists(#k)", upd["ConditionExpression"])
			require.Equal(t, map[string]any{"#k": "YCSB_KEY", "#f0": "field7"}, upd["ExpressionAttributeNames"])
			require.Equal(t, "attribute_exists(#k)", del["ConditionExpression"])
		} else {
			for _, req := range []map[string]any{put, upd, del} {
				require.NotContains(t, req, "ConditionExpression")
			}
			require.Equal(t, map[string]any{"#f0": "field7"}, upd["ExpressionAttributeNames"],
				"no unused names: DynamoDB rejects them")
		}
	}
}

func TestConditionFailures(t *testing.T) {
	f := newFakeServer(t, func(op string, _ int, _ map[string]any) (int, string) {
		if op == "PutItem" || op == "UpdateItem" || op == "DeleteItem" {
			return apiError(400, "ConditionalCheckFailedException", "The conditional request failed")
		}
		return 0, ""
	})
	sess := session(t, f.open(t))
	ctx := context.Background()
	v := record.Record{{Name: "field0", Value: []byte("x")}}
	require.Equal(t, driver.ClassConflict, driver.Classify(sess.Insert(ctx, "usertable", "k", v)))
	require.ErrorIs(t, sess.Update(ctx, "usertable", "k", v), driver.ErrNotFound)
	require.ErrorIs(t, sess.Delete(ctx, "usertable", "k"), driver.ErrNotFound)
}

func TestScanRequests(t *testing.T) {
	page := func(keys ...string) string {
		s := `{"Items":[`
		for i, k := range keys {
			if i > 0 {
				s += ","
			}
			s += `{"YCSB_KEY":{"S":"` + k + `"},"field0":{"S":"v"}}`
		}
		return s + `],"LastEvaluatedKey":{"YCSB_KEY":{"S":"` + keys[len(keys)-1] + `"}}}`
	}
	f := newFakeServer(t, func(op string, n int, _ map[string]any) (int, string) {
		switch {
		case op == "GetItem":
			return 200, item
		case op == "Scan" && n == 0:
			return 200, page("a", "b") // a short page: 1 MB limit reached
		case op == "Scan":
			return 200, page("c", "d", "e")
		}
		return 0, ""
	})
	sess := session(t, f.open(t, "dynamodb.consistentreads", "true"))
	got, err := sess.Scan(context.Background(), "usertable", "user1", 5, []string{"field0"}, nil)
	require.NoError(t, err)
	require.Len(t, got, 5, "start record, then pages until count")
	require.Len(t, f.sent("GetItem"), 1, "the start key is read first, as YCSB does")
	sent := f.sent("Scan")
	require.Len(t, sent, 2)
	require.Equal(t, map[string]any{"YCSB_KEY": map[string]any{"S": "user1"}}, sent[0]["ExclusiveStartKey"])
	require.EqualValues(t, 4, sent[0]["Limit"])
	require.Equal(t, map[string]any{"YCSB_KEY": map[string]any{"S": "b"}}, sent[1]["ExclusiveStartKey"], "next page from LastEvaluatedKey")
	require.EqualValues(t, 2, sent[1]["Limit"])
	require.Equal(t, true, sent[0]["ConsistentRead"])
	require.Equal(t, "#f0", sent[0]["ProjectionExpression"])
	require.Equal(t, "TOTAL", sent[0]["ReturnConsumedCapacity"])
}

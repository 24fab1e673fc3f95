package dynamodb_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/record"
)

func TestThrottledIsClassedCountedAndRetried(t *testing.T) {
	for _, code := range []string{"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"} {
		for _, retries := range []int{0, 2} {
			t.Run(code+"/maxretries="+strconv.Itoa(retries), func(t *testing.T) {
				f := newFakeServer(t, func(op string, _ int, _ map[string]any) (int, string) {
					if op == "GetItem" {
						return apiError(400, code, "Rate of requests exceeds the allowed throughput")
					}
					return 0, ""
				})
				db := f.open(t, "dynamodb.maxretries", strconv.Itoa(retries))
				_, err := session(t, db).Read(context.Background(), "usertable", "user1", nil, nil)
				require.Error(t, err)
				require.Equal(t, driver.ClassThrottled, driver.Classify(err), "%v", err)
				require.True(t, driver.Retryable(err))
				require.Len(t, f.sent("GetItem"), retries+1, "the SDK retried maxretries times")
				c := counters(db)
				require.EqualValues(t, retries, c["dynamodb.retries"])
				require.EqualValues(t, retries+1, c["dynamodb.throttled"], "every throttled attempt counts")
			})
		}
	}
}

func TestThrottledThenSucceeds(t *testing.T) {
	f := newFakeServer(t, func(op string, n int, _ map[string]any) (int, string) {
		if op == "PutItem" && n < 2 {
			return apiError(400, "ProvisionedThroughputExceededException", "slow down")
		}
		if op == "PutItem" {
			return 200, `{"ConsumedCapacity":{"TableName":"usertable","CapacityUnits":1.0}}`
		}
		return 0, ""
	})
	db := f.open(t, "dynamodb.maxretries", "3")
	require.NoError(t, session(t, db).Insert(context.Background(), "usertable", "user1", record.Record{{Name: "field0", Value: []byte("v")}}))
	c := counters(db)
	require.EqualValues(t, 2, c["dynamodb.retries"])
	require.EqualValues(t, 2, c["dynamodb.throttled"])
	require.EqualValues(t, 1, c["dynamodb.consumed_wcu"], "capacity of the successful attempt")
}

func TestServerErrorsAreUnavailable(t *testing.T) {
	for name, answer := range map[string][2]any{
		"InternalServerError": {500, "InternalServerError"},
		"ServiceUnavailable":  {503, "ServiceUnavailable"},
		"bare 502":            {502, ""},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeServer(t, func(op string, _ int, _ map[string]any) (int, string) {
				if op != "UpdateItem" {
					return 0, ""
				}
				if answer[1] == "" {
					return answer[0].(int), "<html>bad gateway</html>"
				}
				return apiError(answer[0].(int), answer[1].(string), "try again")
			})
			db := f.open(t, "dynamodb.maxretries", "1")
			err := session(t, db).Update(context.Background(), "usertable", "user1", record.Record{{Name: "field0", Value: []byte("v")}})
			require.Equal(t, driver.ClassUnavailable, driver.Classify(err), "%v", err)
			require.Len(t, f.sent("UpdateItem"), 2, "5xx is retried by the SDK")
			require.EqualValues(t, 1, counters(db)["dynamodb.retries"])
			require.Zero(t, counters(db)["dynamodb.throttled"])
		})
	}
}

func TestErrorClasses(t *testing.T) {
	for code, want := range map[string]driver.Class{
		"ValidationException":             driver.ClassBadRequest,
		"ResourceNotFoundException":       driver.ClassBadRequest,
		"UnrecognizedClientException":     driver.ClassError,
		"TransactionConflictException":    driver.ClassConflict,
		"ItemCollectionSizeLimitExceeded": driver.ClassError,
	} {
		t.Run(code, func(t *testing.T) {
			f := newFakeServer(t, func(op string, _ int, _ map[string]any) (int, string) {
				if op == "DeleteItem" {
					return apiError(400, code, "no")
				}
				return 0, ""
			})
			db := f.open(t, "dynamodb.maxretries", "0")
			err := session(t, db).Delete(context.Background(), "usertable", "user1")
			require.Equal(t, want, driver.Classify(err), "%v", err)
			require.Contains(t, err.Error(), "usertable")
		})
	}
}

func TestUnprocessedItemsAreResentAndCounted(t *testing.T) {
	keys := make([]string, 30)
	vals := make([]record.Record, 30)
	for i := range keys {
		keys[i] = "user" + strconv.Itoa(i)
		vals[i] = record.Record{{Name: "field0", Value: []byte("v" + strconv.Itoa(i))}}
	}
	// The first request of the first chunk gets two items back unprocessed.
	unprocessed := `{"UnprocessedItems":{"usertable":[
		{"PutRequest":{"Item":{"YCSB_KEY":{"S":"user0"},"field0":{"S":"v0"}}}},
		{"PutRequest":{"Item":{"YCSB_KEY":{"S":"user1"},"field0":{"S":"v1"}}}}]},
		"ConsumedCapacity":[{"TableName":"usertable","CapacityUnits":23.0}]}`
	t.Run("resent", func(t *testing.T) {
		f := newFakeServer(t, func(op string, n int, _ map[string]any) (int, string) {
			if op == "BatchWriteItem" && n == 0 {
				return 200, unprocessed
			}
			return 0, ""
		})
		db := f.open(t, "dynamodb.maxretries", "2")
		sess := session(t, db).(driver.BatchInserter)
		require.NoError(t, sess.InsertBatch(context.Background(), "usertable", keys, vals))
		sent := f.sent("BatchWriteItem")
		require.Len(t, sent, 3, "chunk of 25, the 2 unprocessed, chunk of 5")
		sizes := []int{}
		for _, b := range sent {
			sizes = append(sizes, len(b["RequestItems"].(map[string]any)["usertable"].([]any)))
			require.Equal(t, "TOTAL", b["ReturnConsumedCapacity"])
		}
		require.Equal(t, []int{25, 2, 5}, sizes)
		c := counters(db)
		require.EqualValues(t, 2, c["dynamodb.unprocessed_items"])
		require.EqualValues(t, 23, c["dynamodb.consumed_wcu"])
	})
	t.Run("given up", func(t *testing.T) {
		f := newFakeServer(t, func(op string, _ int, _ map[string]any) (int, string) {
			if op == "BatchWriteItem" {
				return 200, unprocessed
			}
			return 0, ""
		})
		db := f.open(t, "dynamodb.maxretries", "1")
		err := session(t, db).(driver.BatchInserter).InsertBatch(context.Background(), "usertable", keys[:25], vals[:25])
		require.Equal(t, driver.ClassThrottled, driver.Classify(err), "%v", err)
		require.Contains(t, err.Error(), "2 of 25 items still unprocessed")
		require.Len(t, f.sent("BatchWriteItem"), 2)
		require.EqualValues(t, 4, counters(db)["dynamodb.unprocessed_items"])
	})
}

func TestAttemptTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	f := newFakeServer(t, func(op string, _ int, _ map[string]any) (int, string) {
		if op == "GetItem" {
			<-release // never answers within the test
		}
		return 0, ""
	})
	db := f.open(t, "dynamodb.timeout", "100ms", "dynamodb.maxretries", "1")
	start := time.Now()
	_, err := session(t, db).Read(context.Background(), "usertable", "user1", nil, nil)
	require.Equal(t, driver.ClassTimeout, driver.Classify(err), "%v", err)
	require.Len(t, f.sent("GetItem"), 2, "a timed-out attempt is retried")
	require.Less(t, time.Since(start), 2*time.Second)
}

package dynamodb

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"
)

// counter returns the value of the named counter.
func counter(t *testing.T, a *accounting, name string) float64 {
	t.Helper()
	for _, c := range a.counters() {
		if c.Name == name {
			return c.Value
		}
	}
	t.Fatalf("no counter %s", name)
	return 0
}

func TestAccountingCapacity(t *testing.T) {
	cc := func(total, read, write *float64) *types.ConsumedCapacity {
		return &types.ConsumedCapacity{TableName: aws.String("t"), CapacityUnits: total, ReadCapacityUnits: read, WriteCapacityUnits: write}
	}
	for name, tc := range map[string]struct {
		out      any
		rcu, wcu float64
	}{
		"get total only is read":        {&dynamodb.GetItemOutput{ConsumedCapacity: cc(aws.Float64(0.5), nil, nil)}, 0.5, 0},
		"scan total only is read":       {&dynamodb.ScanOutput{ConsumedCapacity: cc(aws.Float64(1.5), nil, nil)}, 1.5, 0},
		"put total only is write":       {&dynamodb.PutItemOutput{ConsumedCapacity: cc(aws.Float64(2), nil, nil)}, 0, 2},
		"update total only is write":    {&dynamodb.UpdateItemOutput{ConsumedCapacity: cc(aws.Float64(1), nil, nil)}, 0, 1},
		"delete total only is write":    {&dynamodb.DeleteItemOutput{ConsumedCapacity: cc(aws.Float64(1), nil, nil)}, 0, 1},
		"split units win over total":    {&dynamodb.UpdateItemOutput{ConsumedCapacity: cc(aws.Float64(3), aws.Float64(1), aws.Float64(2))}, 1, 2},
		"no capacity reported":          {&dynamodb.GetItemOutput{}, 0, 0},
		"failed call has no output":     {nil, 0, 0},
		"other outputs are not counted": {&dynamodb.DescribeTableOutput{}, 0, 0},
		"batch adds every table": {&dynamodb.BatchWriteItemOutput{ConsumedCapacity: []types.ConsumedCapacity{
			*cc(aws.Float64(25), nil, nil), *cc(aws.Float64(0.5), nil, nil)}}, 0, 25.5},
	} {
		t.Run(name, func(t *testing.T) {
			a := &accounting{}
			for i := 0; i < 3; i++ {
				a.countCapacity(tc.out)
			}
			require.InDelta(t, 3*tc.rcu, counter(t, a, "dynamodb.consumed_rcu"), 1e-9)
			require.InDelta(t, 3*tc.wcu, counter(t, a, "dynamodb.consumed_wcu"), 1e-9)
		})
	}
}

func TestAccountingAttempts(t *testing.T) {
	throttle := &smithy.GenericAPIError{Code: "ProvisionedThroughputExceededException"}
	limit := &smithy.GenericAPIError{Code: "RequestLimitExceeded"}
	other := &smithy.GenericAPIError{Code: "InternalServerError"}
	a := &accounting{}
	for _, attempts := range [][]error{
		{nil},                           // first try succeeds
		{throttle, throttle, nil},       // two throttled, then success
		{limit, other, errors.New("x")}, // one throttle among other failures
	} {
		var res []retry.AttemptResult
		for _, err := range attempts {
			res = append(res, retry.AttemptResult{Err: err, Retryable: err != nil})
		}
		a.countResults(res)
	}
	require.EqualValues(t, 4, counter(t, a, "dynamodb.retries"))
	require.EqualValues(t, 3, counter(t, a, "dynamodb.throttled"))
}

package dynamodb

import (
	"context"
	"errors"
	"math"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"

	"github.com/dbarena/dbarena/driver"
)

// milli is the fixed-point scale of the capacity counters: DynamoDB
// reports capacity in multiples of 0.5 unit, so thousandths add up exactly
// in an integer that atomics can update without a lock.
const milli = 1000

// accounting counts what DynamoDB and the SDK do beneath each call: the
// capacity units the service reports consumed, the SDK's retries and the
// throttled responses. It is one initialize-step middleware on every call,
// so every operation is counted the same way, successful or not, and the
// hot path pays a few atomic adds.
type accounting struct {
	rcuMilli    atomic.Int64
	wcuMilli    atomic.Int64
	retries     atomic.Int64
	throttled   atomic.Int64
	unprocessed atomic.Int64
	// transferRetries counts a ledger's transfers read again after
	// another transfer changed their accounts (see Transfer).
	transferRetries atomic.Int64
}

var _ middleware.InitializeMiddleware = (*accounting)(nil)

// ID implements middleware.InitializeMiddleware.
func (a *accounting) ID() string { return "dbarena.Accounting" }

// register adds the middleware to a call's stack. It runs first, so it
// sees the final output and the metadata of every attempt.
func (a *accounting) register(s *middleware.Stack) error {
	return s.Initialize.Add(a, middleware.Before)
}

// HandleInitialize implements middleware.InitializeMiddleware.
func (a *accounting) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
	middleware.InitializeOutput, middleware.Metadata, error,
) {
	out, md, err := next.HandleInitialize(ctx, in)
	a.countAttempts(md)
	a.countCapacity(out.Result)
	return out, md, err
}

// countAttempts counts the attempts beyond the first and the attempts
// that were throttled, from the retry middleware's record of the call.
func (a *accounting) countAttempts(md middleware.Metadata) {
	if res, ok := retry.GetAttemptResults(md); ok {
		a.countResults(res.Results)
	}
}

func (a *accounting) countResults(results []retry.AttemptResult) {
	if n := len(results); n > 1 {
		a.retries.Add(int64(n - 1))
	}
	for _, r := range results {
		if r.Err != nil && throttleError(r.Err) {
			a.throttled.Add(1)
		}
	}
}

// countCapacity adds the consumed capacity an output reports. A failed
// call has no output: DynamoDB still charges a failed conditional write,
// but its error response does not say how much, so the counters miss it.
func (a *accounting) countCapacity(result any) {
	switch r := result.(type) {
	case *dynamodb.GetItemOutput:
		a.addCapacity(r.ConsumedCapacity, false)
	case *dynamodb.ScanOutput:
		a.addCapacity(r.ConsumedCapacity, false)
	case *dynamodb.QueryOutput:
		a.addCapacity(r.ConsumedCapacity, false)
	case *dynamodb.PutItemOutput:
		a.addCapacity(r.ConsumedCapacity, true)
	case *dynamodb.UpdateItemOutput:
		a.addCapacity(r.ConsumedCapacity, true)
	case *dynamodb.DeleteItemOutput:
		a.addCapacity(r.ConsumedCapacity, true)
	case *dynamodb.BatchWriteItemOutput:
		for i := range r.ConsumedCapacity {
			a.addCapacity(&r.ConsumedCapacity[i], true)
		}
	case *dynamodb.TransactWriteItemsOutput:
		for i := range r.ConsumedCapacity {
			a.addCapacity(&r.ConsumedCapacity[i], true)
		}
	case *dynamodb.BatchGetItemOutput:
		for i := range r.ConsumedCapacity {
			a.addCapacity(&r.ConsumedCapacity[i], false)
		}
	}
}

// addCapacity adds one ConsumedCapacity. With ReturnConsumedCapacity=TOTAL
// the service may give only CapacityUnits; they are then read or write
// units according to the operation.
func (a *accounting) addCapacity(c *types.ConsumedCapacity, write bool) {
	if c == nil {
		return
	}
	if c.ReadCapacityUnits == nil && c.WriteCapacityUnits == nil {
		if c.CapacityUnits == nil {
			return
		}
		if write {
			a.wcuMilli.Add(toMilli(*c.CapacityUnits))
		} else {
			a.rcuMilli.Add(toMilli(*c.CapacityUnits))
		}
		return
	}
	if c.ReadCapacityUnits != nil {
		a.rcuMilli.Add(toMilli(*c.ReadCapacityUnits))
	}
	if c.WriteCapacityUnits != nil {
		a.wcuMilli.Add(toMilli(*c.WriteCapacityUnits))
	}
}

func toMilli(units float64) int64 { return int64(math.Round(units * milli)) }

// counters returns the accumulated counts.
func (a *accounting) counters() []driver.Counter {
	return []driver.Counter{
		{Name: "dynamodb.consumed_rcu", Value: float64(a.rcuMilli.Load()) / milli,
			Help: "read capacity units the service reported consumed (ReturnConsumedCapacity=TOTAL)"},
		{Name: "dynamodb.consumed_wcu", Value: float64(a.wcuMilli.Load()) / milli,
			Help: "write capacity units the service reported consumed (ReturnConsumedCapacity=TOTAL)"},
		{Name: "dynamodb.retries", Value: float64(a.retries.Load()),
			Help: "requests the SDK retried after a failed attempt (attempts beyond the first)"},
		{Name: "dynamodb.throttled", Value: float64(a.throttled.Load()),
			Help: "attempts rejected with ProvisionedThroughputExceeded, Throttling or RequestLimitExceeded"},
		{Name: "dynamodb.unprocessed_items", Value: float64(a.unprocessed.Load()),
			Help: "items BatchWriteItem returned unprocessed (throttled within a batch)"},
		{Name: "dynamodb.transfer_retries", Value: float64(a.transferRetries.Load()),
			Help: "ledger transfers read again because another transfer changed their accounts first (TransactWriteItems cancelled)"},
	}
}

// throttleError reports whether err is one of DynamoDB's throttling
// errors: over the table's or partition's capacity, over the account's
// request rate, or over on-demand limits.
func throttleError(err error) bool {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.ErrorCode() {
	case "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded":
		return true
	}
	return false
}

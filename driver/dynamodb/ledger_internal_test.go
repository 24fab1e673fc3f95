package dynamodb

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestLostRace: a transfer reads again only when its transaction was
// cancelled by another transfer (a failed condition, a conflict), never
// when it was throttled or invalid.
func TestLostRace(t *testing.T) {
	cancelled := func(codes ...string) error {
		e := &types.TransactionCanceledException{Message: aws.String("cancelled")}
		for _, c := range codes {
			e.CancellationReasons = append(e.CancellationReasons, types.CancellationReason{Code: aws.String(c)})
		}
		return e
	}
	for _, tc := range []struct {
		err  error
		lost bool
	}{
		{cancelled("ConditionalCheckFailed", "None"), true},
		{cancelled("None", "TransactionConflict"), true},
		{cancelled("ThrottlingError", "None"), false},
		{cancelled("ConditionalCheckFailed", "ProvisionedThroughputExceeded"), false},
		{cancelled("ValidationError"), false},
		{cancelled(), false},
		{errors.New("connection reset"), false},
	} {
		if got := lostRace(tc.err); got != tc.lost {
			t.Errorf("lostRace(%v) = %v, want %v", tc.err, got, tc.lost)
		}
	}
}

package dynamodb

import (
	"context"
	"errors"
	"net"

	"github.com/aws/smithy-go"

	"github.com/dbarena/dbarena/driver"
)

// Error codes DynamoDB (and Alternator) return that the driver treats
// apart. The SDK models some as types, but the code string covers every
// service and SDK version alike.
const (
	codeConditionFailed = "ConditionalCheckFailedException"
	codeNotFound        = "ResourceNotFoundException"
	codeInUse           = "ResourceInUseException"
	codeAccessDenied    = "AccessDeniedException"
)

// apiCode returns the service's error code, or "" when err did not come
// from a response.
func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// httpStatus returns the HTTP status of the response err came with, or 0.
func httpStatus(err error) int {
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// classOf maps an SDK error to a driver class.
func classOf(err error) driver.Class {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return driver.ClassTimeout
	case errors.Is(err, context.Canceled):
		return driver.ClassCanceled
	case throttleError(err):
		return driver.ClassThrottled
	}
	switch apiCode(err) {
	case codeConditionFailed, "TransactionConflictException":
		return driver.ClassConflict
	case "ValidationException", "SerializationException", codeNotFound:
		return driver.ClassBadRequest
	case "InternalServerError", "ServiceUnavailable", "InternalFailure":
		return driver.ClassUnavailable
	case "":
		// No response: the request was not sent or no answer came.
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return driver.ClassTimeout
		}
		if httpStatus(err) == 0 {
			return driver.ClassUnavailable
		}
	}
	if httpStatus(err) >= 500 {
		return driver.ClassUnavailable
	}
	return driver.ClassError
}

// opError classifies a failed operation and says what was attempted. A
// missing table gets a message of its own: it is the usual mistake (run
// before load, or a different table property) and would otherwise read
// as a generic 400.
func (db *DB) opError(op, table string, err error) error {
	if apiCode(err) == codeNotFound {
		return driver.Errorf(driver.ClassBadRequest,
			"dynamodb %s: table %q does not exist at %s (run the load phase first, which creates it, or check the table property): %w",
			op, table, db.cfg.Address(), err)
	}
	return driver.Errorf(classOf(err), "dynamodb %s %s: %w", op, table, err)
}

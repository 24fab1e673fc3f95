package aerospike

import (
	"context"
	"errors"

	as "github.com/aerospike/aerospike-client-go/v8"
	"github.com/aerospike/aerospike-client-go/v8/types"

	"github.com/dbarena/dbarena/driver"
)

// codeClass is a driver class and the result codes that have it.
type codeClass struct {
	class driver.Class
	codes []types.ResultCode
}

// classifier classifies client errors by result code, with the table
// built once at Open. The order matters: the client wraps the error of
// its last attempt in MAX_RETRIES_EXCEEDED, and a busy key or a network
// error under it tells more than the timeout, so TIMEOUT comes last.
// Codes not listed are ERROR. The client's own failures (network, pool)
// have negative codes, the server's positive ones.
type classifier []codeClass

func resultClasses() classifier {
	return classifier{
		{driver.ClassNotFound, []types.ResultCode{types.KEY_NOT_FOUND_ERROR}},
		{driver.ClassConflict, []types.ResultCode{types.KEY_EXISTS_ERROR, types.GENERATION_ERROR,
			types.LOST_CONFLICT, types.MRT_BLOCKED}},
		// The server refuses work it cannot take now: a hot key with too
		// many pending writes, a storage device whose write queue is
		// full, a quota; and the client's own pool being exhausted.
		{driver.ClassThrottled, []types.ResultCode{types.KEY_BUSY, types.XDR_KEY_BUSY, types.DEVICE_OVERLOAD,
			types.QUOTA_EXCEEDED, types.BATCH_QUEUES_FULL, types.BATCH_MAX_REQUESTS_EXCEEDED,
			types.NO_AVAILABLE_CONNECTIONS_TO_NODE}},
		{driver.ClassUnavailable, []types.ResultCode{types.SERVER_NOT_AVAILABLE, types.INVALID_NODE_ERROR,
			types.NETWORK_ERROR, types.NO_RESPONSE, types.PARTITION_UNAVAILABLE, types.INVALID_CLUSTER_PARTITION_MAP,
			types.CLUSTER_KEY_MISMATCH, types.MAX_ERROR_RATE, types.SERVER_MEM_ERROR}},
		{driver.ClassBadRequest, []types.ResultCode{types.PARAMETER_ERROR, types.BIN_NAME_TOO_LONG,
			types.RECORD_TOO_BIG, types.BIN_TYPE_ERROR, types.INVALID_NAMESPACE, types.UNSUPPORTED_FEATURE,
			types.ENTERPRISE_ONLY, types.FAIL_FORBIDDEN, types.ALWAYS_FORBIDDEN, types.INVALID_COMMAND,
			types.INVALID_FIELD, types.SERIALIZE_ERROR, types.BATCH_DISABLED}},
		{driver.ClassTimeout, []types.ResultCode{types.TIMEOUT, types.MAX_RETRIES_EXCEEDED, types.QUERY_TIMEOUT}},
	}
}

// classOf returns the class of err.
func (c classifier) classOf(err error) driver.Class {
	switch {
	case errors.Is(err, context.Canceled):
		return driver.ClassCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return driver.ClassTimeout
	}
	var ae as.Error
	if !errors.As(err, &ae) {
		return driver.Classify(err)
	}
	for _, cc := range c {
		if ae.Matches(cc.codes...) {
			return cc.class
		}
	}
	return driver.ClassError
}

// classify returns err as a classified driver error; nil stays nil.
func (c classifier) classify(err error) error {
	if err == nil {
		return nil
	}
	var de *driver.Error
	if errors.As(err, &de) {
		return err
	}
	return &driver.Error{Class: c.classOf(err), Err: err}
}

// matches reports whether err is an Aerospike error with one of the codes
// anywhere in its chain.
func matches(err error, codes ...types.ResultCode) bool {
	var ae as.Error
	return errors.As(err, &ae) && ae.Matches(codes...)
}

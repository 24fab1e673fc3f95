package mongodb

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/dbarena/dbarena/driver"
)

// Server error codes the driver classifies, from MongoDB's
// src/mongo/base/error_codes.yml. Cosmos DB and Atlas add their own for
// rate limiting.
const (
	codeHostUnreachable                 = 6
	codeHostNotFound                    = 7
	codeMaxTimeMSExpired                = 50
	codeWriteConcernFailed              = 64
	codeNetworkTimeout                  = 89
	codeShutdownInProgress              = 91
	codeWriteConflict                   = 112
	codePrimarySteppedDown              = 189
	codeExceededTimeLimit               = 262
	codeTooManyRequests                 = 16500 // Azure Cosmos DB for MongoDB: request rate too large
	codeSocketException                 = 9001
	codeNotWritablePrimary              = 10107
	codeInterruptedAtShutdown           = 11600
	codeInterruptedDueToReplStateChange = 11602
	codeNotPrimaryNoSecondaryOk         = 13435
	codeNotPrimaryOrSecondary           = 13436
	codeBadValue                        = 2
	codeFailedToParse                   = 9
	codeTypeMismatch                    = 14
	codeInvalidNamespace                = 73
	codeDocumentTooLarge                = 10334
)

// labelOverloaded is the error label servers put on work they shed under
// overload (the Go driver retries such errors with backoff first).
const labelOverloaded = "SystemOverloadedError"

// classify maps a MongoDB driver error to a driver error class. nil stays
// nil; an error that is already classified is returned as it is.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var de *driver.Error
	if errors.As(err, &de) {
		return err
	}
	return &driver.Error{Class: classOf(err), Err: err}
}

// classOf returns the class of a MongoDB driver error. The order matters:
// a write concern timeout is a timeout before it is a write concern error,
// and a duplicate key inside a bulk write is a conflict whatever else the
// batch reported.
func classOf(err error) driver.Class {
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return driver.ClassNotFound
	case errors.Is(err, context.Canceled):
		return driver.ClassCanceled
	case mongo.IsDuplicateKeyError(err):
		return driver.ClassConflict
	case mongo.IsTimeout(err):
		return driver.ClassTimeout
	case mongo.IsNetworkError(err), errors.Is(err, mongo.ErrClientDisconnected),
		errors.As(err, new(topology.ServerSelectionError)):
		return driver.ClassUnavailable
	}
	var se mongo.ServerError
	if errors.As(err, &se) {
		return serverClass(se)
	}
	return driver.ClassError
}

// serverClass classifies an error the server returned by its codes.
func serverClass(se mongo.ServerError) driver.Class {
	has := func(codes ...int) bool {
		for _, c := range codes {
			if se.HasErrorCode(c) {
				return true
			}
		}
		return false
	}
	switch {
	case has(codeMaxTimeMSExpired, codeExceededTimeLimit, codeNetworkTimeout):
		return driver.ClassTimeout
	case has(codeTooManyRequests) || se.HasErrorLabel(labelOverloaded):
		return driver.ClassThrottled
	case has(codeWriteConflict):
		return driver.ClassConflict
	case has(codeHostUnreachable, codeHostNotFound, codeShutdownInProgress, codePrimarySteppedDown,
		codeSocketException, codeNotWritablePrimary, codeInterruptedAtShutdown,
		codeInterruptedDueToReplStateChange, codeNotPrimaryNoSecondaryOk, codeNotPrimaryOrSecondary):
		return driver.ClassUnavailable
	case hasWriteConcernError(se):
		// The write was applied on the primary but not confirmed by the
		// members w asks for (wtimeout, too few members up): the data is
		// there, the guarantee is not.
		return driver.ClassUnavailable
	case has(codeBadValue, codeFailedToParse, codeTypeMismatch, codeInvalidNamespace, codeDocumentTooLarge):
		return driver.ClassBadRequest
	}
	if se.HasErrorLabel("RetryableWriteError") || se.HasErrorLabel("TransientTransactionError") {
		return driver.ClassUnavailable
	}
	return driver.ClassError
}

// hasWriteConcernError reports whether a write failed only its write
// concern.
func hasWriteConcernError(se mongo.ServerError) bool {
	switch e := se.(type) {
	case mongo.WriteException:
		return e.WriteConcernError != nil
	case mongo.BulkWriteException:
		return e.WriteConcernError != nil
	}
	return se.HasErrorCode(codeWriteConcernFailed)
}

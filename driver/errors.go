package driver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"
)

// Class is the kind of a failed operation. The names follow YCSB's Status
// names where one exists, so "Return=NOT_FOUND" lines read the same as in
// YCSB's output.
type Class string

// Error classes. Drivers return an *Error with one of these, or a plain error
// that Classify maps.
const (
	ClassOK          Class = "OK"
	ClassError       Class = "ERROR"
	ClassNotFound    Class = "NOT_FOUND"
	ClassTimeout     Class = "TIMEOUT"
	ClassCanceled    Class = "CANCELED"
	ClassThrottled   Class = "THROTTLED"
	ClassUnavailable Class = "SERVICE_UNAVAILABLE"
	ClassBadRequest  Class = "BAD_REQUEST"
	ClassConflict    Class = "CONFLICT"
	ClassUnsupported Class = "NOT_IMPLEMENTED"
)

// ErrNotFound is returned when the addressed record does not exist.
var ErrNotFound = &Error{Class: ClassNotFound, Err: errors.New("record not found")}

// ErrUnsupported is returned by drivers for operations they do not offer.
var ErrUnsupported = &Error{Class: ClassUnsupported, Err: errors.New("operation not supported by this driver")}

// Error is a classified driver error.
type Error struct {
	Class Class
	Err   error
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("%s: %v", e.Class, e.Err) }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Is matches another *Error of the same class, so errors.Is(err,
// driver.ErrNotFound) works for any not-found error.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Class == e.Class
}

// Errorf returns a classified error with a formatted message.
func Errorf(class Class, format string, args ...any) error {
	return &Error{Class: class, Err: fmt.Errorf(format, args...)}
}

// Classify returns the class of err: ClassOK for nil, the class of a wrapped
// *Error, timeouts and cancellations from the standard library, and
// ClassError otherwise.
func Classify(err error) Class {
	if err == nil {
		return ClassOK
	}
	var de *Error
	if errors.As(err, &de) {
		return de.Class
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return ClassTimeout
	}
	if errors.Is(err, context.Canceled) {
		return ClassCanceled
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return ClassTimeout
	}
	return ClassError
}

// Retryable reports whether an operation that failed with err may succeed if
// tried again unchanged.
func Retryable(err error) bool {
	switch Classify(err) {
	case ClassTimeout, ClassThrottled, ClassUnavailable, ClassConflict:
		return true
	}
	return false
}

// Unreachable is the error a driver returns when it cannot connect: it
// names the database, the address tried and the connect timeout, so that a
// typo in a host or port is obvious from the message alone.
func Unreachable(database, addr string, timeout time.Duration, err error) error {
	return &Error{Class: ClassUnavailable, Err: fmt.Errorf("cannot connect to %s at %s within %s: %w", database, addr, timeout, err)}
}

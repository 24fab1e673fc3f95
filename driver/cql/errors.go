package cql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/dbarena/dbarena/driver"
)

// classOf maps a gocql error to a driver class:
//
//   - unavailable (not enough live replicas for the consistency level), no
//     connection to any host, a closed session, a bootstrapping coordinator
//     or a broken connection: SERVICE_UNAVAILABLE;
//   - server-side read and write timeouts, gocql's own request timeout and
//     an LWT whose outcome is unknown (CAS write unknown): TIMEOUT;
//   - overloaded coordinator: THROTTLED;
//   - syntax and invalid-request errors: BAD_REQUEST.
func classOf(err error) driver.Class {
	var (
		unavailable  *gocql.RequestErrUnavailable
		readTimeout  *gocql.RequestErrReadTimeout
		writeTimeout *gocql.RequestErrWriteTimeout
		casUnknown   *gocql.RequestErrCASWriteUnknown
		overloaded   *gocql.RequestErrOverloaded
		bootstrap    *gocql.RequestErrBootstrapping
		syntax       *gocql.RequestErrSyntax
		invalid      *gocql.RequestErrInvalid
		netErr       net.Error
	)
	switch {
	case errors.As(err, &unavailable), errors.As(err, &bootstrap),
		errors.Is(err, gocql.ErrNoConnections), errors.Is(err, gocql.ErrSessionClosed),
		errors.Is(err, gocql.ErrConnectionClosed), errors.Is(err, io.EOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return driver.ClassUnavailable
	case errors.As(err, &readTimeout), errors.As(err, &writeTimeout), errors.As(err, &casUnknown),
		errors.Is(err, gocql.ErrTimeoutNoResponse), errors.Is(err, context.DeadlineExceeded):
		return driver.ClassTimeout
	case errors.Is(err, context.Canceled):
		return driver.ClassCanceled
	case errors.As(err, &overloaded):
		return driver.ClassThrottled
	case errors.As(err, &syntax), errors.As(err, &invalid):
		return driver.ClassBadRequest
	case errors.As(err, &netErr) && netErr.Timeout():
		return driver.ClassTimeout
	}
	return driver.ClassError
}

// opError classifies a failed operation and names it, the table and the
// key, so that one line of the error summary says what failed where.
//
// gocql reports requests in flight on a connection that broke as
// "context canceled" (it cancels the connection's own context): when the
// caller's ctx is still live, that is the server going away, not the
// caller stopping.
func opError(ctx context.Context, op, table, key string, err error) error {
	if err == nil {
		return nil
	}
	class := classOf(err)
	if class == driver.ClassCanceled && ctx.Err() == nil {
		class = driver.ClassUnavailable
	}
	return &driver.Error{Class: class, Err: fmt.Errorf("cql %s %s %q: %w", op, table, key, err)}
}

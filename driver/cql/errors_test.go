package cql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
)

func TestClassOf(t *testing.T) {
	for name, tc := range map[string]struct {
		err  error
		want driver.Class
	}{
		"unavailable":    {&gocql.RequestErrUnavailable{}, driver.ClassUnavailable},
		"no connections": {gocql.ErrNoConnections, driver.ClassUnavailable},
		"conn closed":    {gocql.ErrConnectionClosed, driver.ClassUnavailable},
		"eof":            {fmt.Errorf("read: %w", io.EOF), driver.ClassUnavailable},
		"bootstrapping":  {&gocql.RequestErrBootstrapping{}, driver.ClassUnavailable},
		"read timeout":   {&gocql.RequestErrReadTimeout{}, driver.ClassTimeout},
		"write timeout":  {&gocql.RequestErrWriteTimeout{}, driver.ClassTimeout},
		"cas unknown":    {&gocql.RequestErrCASWriteUnknown{}, driver.ClassTimeout},
		"client timeout": {gocql.ErrTimeoutNoResponse, driver.ClassTimeout},
		"deadline":       {context.DeadlineExceeded, driver.ClassTimeout},
		"canceled":       {context.Canceled, driver.ClassCanceled},
		"overloaded":     {&gocql.RequestErrOverloaded{}, driver.ClassThrottled},
		"syntax":         {&gocql.RequestErrSyntax{}, driver.ClassBadRequest},
		"invalid":        {&gocql.RequestErrInvalid{}, driver.ClassBadRequest},
		"other":          {errors.New("boom"), driver.ClassError},
	} {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, classOf(tc.err))
			require.Equal(t, tc.want, driver.Classify(opError(canceledCtx(tc.want), "read", "usertable", "user1", tc.err)))
		})
	}
}

func TestConnectErrorNamesTheLogin(t *testing.T) {
	// The messages Cassandra 5.0 sends, as gocql flattens them (checked
	// against a node with PasswordAuthenticator).
	db := &DB{cfg: Config{Hosts: []string{"db1:9042"}, Username: "alice"}}
	err := db.connectError(errors.New("gocql: unable to create session: unable to discover protocol version: Provided username alice and/or password are incorrect"))
	require.ErrorContains(t, err, `refused the login of user "alice"`)
	require.ErrorContains(t, err, "db1:9042")

	db.cfg.Username = ""
	err = db.connectError(errors.New(`unable to discover protocol version: authentication required (using "org.apache.cassandra.auth.PasswordAuthenticator")`))
	require.ErrorContains(t, err, "set cql.username and cql.password")

	err = db.connectError(errors.New("gocql: no response received from cassandra within timeout period"))
	require.Equal(t, driver.ClassUnavailable, driver.Classify(err))
	require.ErrorContains(t, err, "db1:9042")
}

// canceledCtx is a cancelled context for the case that expects CANCELED
// (the caller stopped), a live one otherwise.
func canceledCtx(want driver.Class) context.Context {
	if want != driver.ClassCanceled {
		return context.Background()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func TestCanceledByABrokenConnectionIsUnavailable(t *testing.T) {
	err := opError(context.Background(), "read", "usertable", "user1", context.Canceled)
	require.Equal(t, driver.ClassUnavailable, driver.Classify(err))
}

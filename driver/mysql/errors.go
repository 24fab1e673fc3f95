package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"net"

	gomysql "github.com/go-sql-driver/mysql"

	dbdriver "github.com/dbarena/dbarena/driver"
)

// errorClass maps a server error number to a driver error class. Numbers
// below 9000 are MySQL's and MariaDB's (TiDB reuses them); 8xxx and 9xxx
// are TiDB's own.
func errorClass(number uint16) dbdriver.Class {
	switch number {
	case 1062, 1586: // duplicate key
		return dbdriver.ClassConflict
	case 1205, 1213: // lock wait timeout, deadlock: rolled back, may succeed when tried again
		return dbdriver.ClassConflict
	case 8002, 8005, 8022, 8028, 9004, 9007: // TiDB write conflicts, retry failures, schema changed
		return dbdriver.ClassConflict
	case 3024, 1969, 9001, 9002: // MySQL max_execution_time, MariaDB max_statement_time, TiDB PD/TiKV timeout
		return dbdriver.ClassTimeout
	case 1040, 1203, 9003: // too many connections (server, user), TiKV busy
		return dbdriver.ClassThrottled
	case 1053, 1290, 1792, 1836, 9005, 8027: // shutdown, read-only (failover), TiKV region unavailable, TiDB schema outdated
		return dbdriver.ClassUnavailable
	case 1046, 1049, 1054, 1064, 1146, 1406, 1366: // no database, unknown database/column, syntax, missing table, data too long, bad value
		return dbdriver.ClassBadRequest
	case 1317: // query interrupted
		return dbdriver.ClassCanceled
	}
	return dbdriver.ClassError
}

// classify maps an error to a driver error class: server errors by number,
// timeouts as TIMEOUT, and every other connection failure as
// SERVICE_UNAVAILABLE.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var de *dbdriver.Error
	if errors.As(err, &de) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return &dbdriver.Error{Class: errorClass(me.Number), Err: err}
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return &dbdriver.Error{Class: dbdriver.ClassTimeout, Err: err}
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, gomysql.ErrInvalidConn), errors.As(err, &ne):
		return &dbdriver.Error{Class: dbdriver.ClassUnavailable, Err: err}
	}
	return &dbdriver.Error{Class: dbdriver.ClassError, Err: err}
}

// errorNumber returns the server error number of err, or 0.
func errorNumber(err error) uint16 {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

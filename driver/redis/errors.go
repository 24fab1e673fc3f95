package redis

import (
	"context"
	"errors"
	"net"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbarena/dbarena/driver"
)

// isServerError reports whether err is an error reply from the server, as
// opposed to a failure to reach it.
func isServerError(err error) bool {
	var re goredis.Error
	return errors.As(err, &re)
}

// classify maps an error to a driver error class. The error replies a
// server sends while it cannot serve for a moment (loading, failover,
// cluster down, a script still running) and every connection failure are
// SERVICE_UNAVAILABLE, so the runner counts them as retryable; timeouts are
// TIMEOUT; wrong types and unknown commands are BAD_REQUEST.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var de *driver.Error
	if errors.As(err, &de) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	class := driver.ClassError
	switch {
	case errors.Is(err, goredis.ErrPoolTimeout):
		// Waiting for a free connection took longer than redis.timeout.
		class = driver.ClassTimeout
	case isServerError(err):
		var re goredis.Error
		errors.As(err, &re)
		class = replyClass(re.Error())
	default:
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			class = driver.ClassTimeout
		} else {
			// Refused, reset, closed: the connection failed.
			class = driver.ClassUnavailable
		}
	}
	return &driver.Error{Class: class, Err: err}
}

// replyClass classifies an error reply by its prefix, the error code Redis
// puts first in every error message.
func replyClass(msg string) driver.Class {
	code, _, _ := strings.Cut(msg, " ")
	switch code {
	case "LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "READONLY", "BUSY", "NOREPLICAS", "MOVED", "ASK":
		return driver.ClassUnavailable
	case "WRONGTYPE", "NOSCRIPT", "CROSSSLOT":
		return driver.ClassBadRequest
	case "ERR":
		if strings.Contains(msg, "max number of clients") {
			return driver.ClassThrottled
		}
		if strings.HasPrefix(msg, "ERR unknown command") || strings.HasPrefix(msg, "ERR wrong number of arguments") {
			return driver.ClassBadRequest
		}
	}
	return driver.ClassError
}

package redis

import (
	"context"
	"errors"
	"net"
	"strings"

	"github.com/redis/rueidis"

	"github.com/dbarena/dbarena/driver"
)

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
	var class driver.Class
	var re *rueidis.RedisError
	var ne net.Error
	switch {
	case errors.As(err, &re):
		class = replyClass(re.Error())
	case errors.As(err, &ne) && ne.Timeout():
		// No reply within redis.timeout: rueidis closes the connection
		// and fails every command waiting on it.
		class = driver.ClassTimeout
	default:
		// Refused, reset, closed: the connection failed.
		class = driver.ClassUnavailable
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

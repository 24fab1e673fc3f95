package redis

import (
	"errors"
	"net"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/record"
)

func TestClassify(t *testing.T) {
	for msg, class := range map[string]driver.Class{
		"WRONGTYPE Operation against a key holding the wrong kind of value": driver.ClassBadRequest,
		"LOADING Redis is loading the dataset in memory":                    driver.ClassUnavailable,
		"READONLY You can't write against a read only replica.":             driver.ClassUnavailable,
		"CLUSTERDOWN The cluster is down":                                   driver.ClassUnavailable,
		"ERR max number of clients reached":                                 driver.ClassThrottled,
		"ERR unknown command 'FOO'":                                         driver.ClassBadRequest,
		"OOM command not allowed when used memory > 'maxmemory'.":           driver.ClassError,
	} {
		require.Equal(t, class, replyClass(msg), msg)
	}
	require.Equal(t, driver.ClassUnavailable, driver.Classify(classify(errors.New("read tcp: connection reset by peer"))),
		"a failed connection is unavailable")
	require.Equal(t, driver.ClassTimeout, driver.Classify(classify(&net.OpError{Op: "read", Err: os.ErrDeadlineExceeded})),
		"no reply within redis.timeout")
	require.NoError(t, classify(nil))
	require.ErrorIs(t, classify(driver.ErrNotFound), driver.ErrNotFound, "classified errors pass through")
}

func TestAppendFieldReusesNames(t *testing.T) {
	dst := appendField(nil, "field0", "a")
	dst = appendField(dst, "field1", "b")
	allocs := testing.AllocsPerRun(100, func() {
		dst = appendField(dst[:0], "field0", "x")
		dst = appendField(dst, "field1", "y")
	})
	require.Zero(t, allocs, "rereading the same fields allocates nothing")
	require.True(t, record.Equal(record.Record{{Name: "field0", Value: []byte("x")}, {Name: "field1", Value: []byte("y")}}, dst))
}

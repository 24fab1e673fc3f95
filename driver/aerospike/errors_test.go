package aerospike

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	as "github.com/aerospike/aerospike-client-go/v8"
	"github.com/aerospike/aerospike-client-go/v8/types"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/record"
)

func aerr(code types.ResultCode) error { return &as.AerospikeError{ResultCode: code} }

func TestClassify(t *testing.T) {
	c := resultClasses()
	for name, tc := range map[string]struct {
		err  error
		want driver.Class
	}{
		"key not found":      {aerr(types.KEY_NOT_FOUND_ERROR), driver.ClassNotFound},
		"key exists":         {aerr(types.KEY_EXISTS_ERROR), driver.ClassConflict},
		"generation":         {aerr(types.GENERATION_ERROR), driver.ClassConflict},
		"server timeout":     {aerr(types.TIMEOUT), driver.ClassTimeout},
		"client timeout":     {as.ErrTimeout, driver.ClassTimeout},
		"retries exhausted":  {aerr(types.MAX_RETRIES_EXCEEDED), driver.ClassTimeout},
		"key busy":           {aerr(types.KEY_BUSY), driver.ClassThrottled},
		"device overload":    {aerr(types.DEVICE_OVERLOAD), driver.ClassThrottled},
		"quota":              {aerr(types.QUOTA_EXCEEDED), driver.ClassThrottled},
		"pool exhausted":     {as.ErrConnectionPoolExhausted, driver.ClassThrottled},
		"server unavailable": {as.ErrServerNotAvailable, driver.ClassUnavailable},
		"network":            {as.ErrNetwork, driver.ClassUnavailable},
		"partition":          {aerr(types.PARTITION_UNAVAILABLE), driver.ClassUnavailable},
		"cluster empty":      {as.ErrClusterIsEmpty, driver.ClassUnavailable},
		"bin name too long":  {aerr(types.BIN_NAME_TOO_LONG), driver.ClassBadRequest},
		"record too big":     {aerr(types.RECORD_TOO_BIG), driver.ClassBadRequest},
		"forbidden":          {aerr(types.FAIL_FORBIDDEN), driver.ClassBadRequest},
		"bad namespace":      {aerr(types.INVALID_NAMESPACE), driver.ClassBadRequest},
		"not authenticated":  {aerr(types.NOT_AUTHENTICATED), driver.ClassError},
		"server error":       {aerr(types.SERVER_ERROR), driver.ClassError},
		"wrapped":            {fmt.Errorf("read: %w", aerr(types.KEY_BUSY)), driver.ClassThrottled},
		"canceled":           {context.Canceled, driver.ClassCanceled},
		"deadline":           {context.DeadlineExceeded, driver.ClassTimeout},
		"plain":              {errors.New("boom"), driver.ClassError},
	} {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, c.classOf(tc.err), "%v", tc.err)
			require.Equal(t, tc.want, driver.Classify(c.classify(tc.err)))
		})
	}
	require.NoError(t, c.classify(nil))
	require.Same(t, driver.ErrNotFound, c.classify(driver.ErrNotFound), "classified errors pass through")
}

func TestScanUnsupported(t *testing.T) {
	s := newSession(&DB{})
	_, err := s.Scan(context.Background(), "usertable", "user1", 10, nil, nil)
	require.ErrorIs(t, err, driver.ErrUnsupported)
	require.ErrorContains(t, err, "scan")
}

func TestLongFieldNameFailsBeforeSending(t *testing.T) {
	// No client: the bin name is checked before anything is sent.
	s := newSession(&DB{})
	err := s.Insert(context.Background(), "usertable", "k", recordOf("a_field_name_of_20ch"))
	require.Equal(t, driver.ClassBadRequest, driver.Classify(err))
	require.ErrorContains(t, err, "a_field_name_of_20ch")
	err = s.InsertBatch(context.Background(), "usertable", []string{"k"}, []record.Record{recordOf("a_field_name_of_20ch")})
	require.Equal(t, driver.ClassBadRequest, driver.Classify(err))
}

func recordOf(names ...string) record.Record {
	var r record.Record
	for _, n := range names {
		r = append(r, record.Field{Name: n, Value: []byte("v")})
	}
	return r
}

// TestLoginErrorsNameTheUserOnly checks the messages of a refused or
// impossible login: they name the user and the properties to check,
// never the password. (No Aerospike server runs here; the CLI's secret
// test covers the unreachable path end to end.)
func TestLoginErrorsNameTheUserOnly(t *testing.T) {
	const pw = "Mk7asUnitMarker"
	db := &DB{cfg: Config{User: "bench", Password: pw, ConnectTimeout: time.Second}, addr: "db1:3000"}
	for name, c := range map[string]struct {
		code types.ResultCode
		want string
	}{
		"wrong password":  {types.INVALID_PASSWORD, `aerospike at db1:3000 refused the login of user "bench" (check aerospike.user and aerospike.password)`},
		"unknown user":    {types.INVALID_USER, `refused the login of user "bench"`},
		"expired":         {types.EXPIRED_PASSWORD, `refused the login of user "bench"`},
		"no security":     {types.SECURITY_NOT_ENABLED, "has no access control"},
		"nobody answered": {types.INVALID_NODE_ERROR, "cannot connect to aerospike at db1:3000"},
	} {
		t.Run(name, func(t *testing.T) {
			err := db.connectError(aerr(c.code))
			require.ErrorContains(t, err, c.want)
			require.NotContains(t, err.Error(), pw)
		})
	}
}

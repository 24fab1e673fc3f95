package mongodb

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/record"
)

func TestClassify(t *testing.T) {
	writeErr := func(code int) error {
		return mongo.WriteException{WriteErrors: mongo.WriteErrors{{Code: code, Message: "m"}}}
	}
	cmdErr := func(code int32, labels ...string) error {
		return mongo.CommandError{Code: code, Message: "m", Labels: labels}
	}
	for name, tc := range map[string]struct {
		err  error
		want driver.Class
	}{
		"no documents":                      {mongo.ErrNoDocuments, driver.ClassNotFound},
		"duplicate key":                     {writeErr(11000), driver.ClassConflict},
		"duplicate in bulk":                 {mongo.BulkWriteException{WriteErrors: []mongo.BulkWriteError{{WriteError: mongo.WriteError{Code: 11000}}}}, driver.ClassConflict},
		"deadline":                          {fmt.Errorf("op: %w", context.DeadlineExceeded), driver.ClassTimeout},
		"canceled":                          {context.Canceled, driver.ClassCanceled},
		"maxTimeMS":                         {cmdErr(50), driver.ClassTimeout},
		"network label":                     {cmdErr(0, "NetworkError"), driver.ClassUnavailable},
		"server selection":                  {topology.ServerSelectionError{Wrapped: errors.New("no server")}, driver.ClassUnavailable},
		"client disconnected":               {mongo.ErrClientDisconnected, driver.ClassUnavailable},
		"not primary":                       {cmdErr(10107), driver.ClassUnavailable},
		"stepped down":                      {cmdErr(189), driver.ClassUnavailable},
		"write conflict":                    {cmdErr(112), driver.ClassConflict},
		"cosmos rate limit":                 {cmdErr(16500), driver.ClassThrottled},
		"write concern":                     {mongo.WriteException{WriteConcernError: &mongo.WriteConcernError{Code: 100, Message: "not enough data-bearing nodes"}}, driver.ClassUnavailable},
		"write concern wtimeout as maxTime": {mongo.WriteException{WriteConcernError: &mongo.WriteConcernError{Code: 50}}, driver.ClassTimeout},
		"bad value":                         {cmdErr(2), driver.ClassBadRequest},
		"document too large":                {writeErr(10334), driver.ClassBadRequest},
		"retryable label":                   {cmdErr(1234, "RetryableWriteError"), driver.ClassUnavailable},
		"other server error":                {cmdErr(13), driver.ClassError},
		"plain":                             {errors.New("boom"), driver.ClassError},
	} {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, classOf(tc.err), "%v", tc.err)
			require.Equal(t, tc.want, driver.Classify(classify(tc.err)))
		})
	}
	require.NoError(t, classify(nil))
	require.Same(t, driver.ErrNotFound, classify(driver.ErrNotFound), "classified errors pass through")
}

func TestBSONRoundTrip(t *testing.T) {
	rec := record.Record{{Name: "field0", Value: []byte("a")}, {Name: "field1", Value: []byte{}}, {Name: "f2", Value: []byte{0, 255}}}
	doc := appendRecord(nil, "user7", rec)
	names := map[string]string{}
	name := func(k []byte, _ []string) string {
		names[string(k)] = string(k)
		return string(k)
	}
	got, err := appendFields(nil, doc, nil, name)
	require.NoError(t, err)
	require.True(t, record.Equal(rec, got), "%v", got)
	require.NotContains(t, names, "_id", "the key is not a field")

	_, err = appendFields(nil, doc[:len(doc)-2], nil, name)
	require.Error(t, err, "a truncated document")

	set := appendSet(nil, rec[:1])
	require.Contains(t, string(set), "$set")
	require.Contains(t, string(appendRangeFilter(nil, "user1")), "$gte")
}

func TestSessionFieldNames(t *testing.T) {
	s := newSession(&DB{})
	a := s.fieldName([]byte("field0"), nil)
	b := s.fieldName([]byte("field0"), nil)
	require.Equal(t, "field0", a)
	require.Equal(t, 1, len(s.names), "interned once")
	require.Equal(t, a, b)
	asked := []string{"x", "field3"}
	require.Equal(t, "field3", s.fieldName([]byte("field3"), asked))
	allocs := testing.AllocsPerRun(100, func() { _ = s.fieldName([]byte("field0"), nil) })
	require.Zero(t, allocs, "a known name costs no allocation")
}

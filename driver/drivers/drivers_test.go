package drivers

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
)

// TestOpenErrorsHideCredentials opens through the decorator every
// registered driver goes through, with a client that echoes what it was
// given, as pgx, go-sql-driver and servers do.
func TestOpenErrorsHideCredentials(t *testing.T) {
	cause := errors.New("connection refused")
	echo := func(_ context.Context, p driver.Params) (driver.DB, error) {
		return nil, fmt.Errorf("connect to %s as %s/%s: %w", p.Props["x.url"], p.Props["x.user"], p.Props["x.password"], cause)
	}
	for name, c := range map[string]struct {
		props map[string]string
		want  string
	}{
		"key=value":      {map[string]string{"x.url": "host=h password='pw one'"}, "connect to host=h password='REDACTED' as /: connection refused"},
		"URL":            {map[string]string{"x.url": "redis://:hunter22@h:6379"}, "connect to redis://:REDACTED@h:6379 as /: connection refused"},
		"secret-named":   {map[string]string{"x.user": "bench", "x.password": "hunter22"}, "connect to  as bench/REDACTED: connection refused"},
		"nothing secret": {map[string]string{"x.url": "h:6379"}, "connect to h:6379 as /: connection refused"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := redacted(echo)(context.Background(), driver.Params{Props: c.props})
			require.EqualError(t, err, c.want)
			require.ErrorIs(t, err, cause, "the cause is kept for the callers' errors.As")
		})
	}
}

// TestLookupSuggests checks that an unknown driver lists the valid ones
// and names the nearest when it is a plausible typo.
func TestLookupSuggests(t *testing.T) {
	_, err := Lookup("postgress")
	require.ErrorContains(t, err, `unknown driver "postgress": valid drivers are aerospike, basic, `)
	require.ErrorContains(t, err, `; did you mean "postgres"?`)
	_, err = Lookup("oracle")
	require.NotContains(t, err.Error(), "did you mean")
}

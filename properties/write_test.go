package properties_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/properties"
)

func TestWriteRoundTrip(t *testing.T) {
	in := properties.New()
	for k, v := range map[string]string{
		"recordcount":    "1000",
		"postgres.url":   "postgres://u:p@h:5432/db?sslmode=disable",
		"odd key=with:x": " leading space, trailing \\ and\nnewline\ttab",
		"empty":          "",
		"#comment":       "!bang",
	} {
		in.Set(k, v, properties.Source{File: "test"})
	}
	var buf bytes.Buffer
	require.NoError(t, in.Write(&buf))
	out, err := properties.Parse(&buf, "written")
	require.NoError(t, err)
	require.Equal(t, in.Map(), out.Map())
}

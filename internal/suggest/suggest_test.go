package suggest_test

import (
	"testing"

	"github.com/dbarena/dbarena/internal/suggest"
	"github.com/stretchr/testify/require"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3},
		{"recordcount", "recrodcount", 1}, // a swap is one edit
		{"threads", "threads", 0},
	} {
		require.Equal(t, c.want, suggest.Distance(c.a, c.b), "%q %q", c.a, c.b)
	}
}

func TestNearest(t *testing.T) {
	valid := []string{"recordcount", "requestdistribution", "threads", "target"}
	require.Equal(t, "recordcount", suggest.Nearest("RecordCont", valid))
	require.Equal(t, "requestdistribution", suggest.Nearest("requestdist", valid), "an abbreviation")
	require.Equal(t, "target", suggest.Nearest("targte", valid))
	require.Empty(t, suggest.Nearest("zzzzzzzz", valid))
	require.Empty(t, suggest.Nearest("ab", valid), "two letters match nothing")
}

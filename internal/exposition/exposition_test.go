package exposition

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLabelNames checks the label-name rule on both sides: the names
// exporters print are read, and a name the format forbids is an error
// naming the line rather than a label read under a guessed name.
func TestLabelNames(t *testing.T) {
	ms, err := Parse(strings.NewReader("m{_a=\"1\",B9_c=\"2\"} 3\n"))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"_a": "1", "B9_c": "2"}, ms[0].Labels)

	for _, line := range []string{"m{\t=\"\"} 0", "m{9a=\"x\"} 0", "m{a-b=\"x\"} 0", "m{a b=\"x\"} 0"} {
		_, err := Parse(strings.NewReader("# ok\n" + line + "\n"))
		require.ErrorContains(t, err, "line 2: m: bad label name", line)
	}
}

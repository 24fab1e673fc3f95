package redis

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScoreIsJavaHashCode pins the index score to Java's String.hashCode,
// the score YCSB's binding writes. The expected values were printed by
// "...".hashCode() on OpenJDK 17.
func TestScoreIsJavaHashCode(t *testing.T) {
	for key, want := range map[string]int32{
		"":                        0,
		"a":                       97,
		"user1":                   111578566,
		"Hello World":             -862545276,
		"user6284781860667377211": -594971599,
		"user000000012345":        2029339470,
		"aaa-scan05":              812283982,
		"é":                       233,
		"😀":                       1772899, // a surrogate pair in UTF-16
		"kéy😀z":                   -957903044,
	} {
		require.Equal(t, want, score(key), "score(%q)", key)
	}
}

func TestScoreArg(t *testing.T) {
	require.Equal(t, "-862545276", scoreArg("Hello World"))
	require.Equal(t, "97", scoreArg("a"))
}

package results

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFlagKinds reads flags as trials.csv holds them, from this version's
// constructors and as older versions wrote them by hand: the same kind
// either way, so old directories group and count as new ones.
func TestFlagKinds(t *testing.T) {
	for name, tc := range map[string]struct {
		flag    Flag
		kind    FlagKind
		details string
	}{
		"errors":        {ErrorsFlag(3, 1000), FlagErrors, "3 of 1000 operations failed"},
		"interrupted":   {InterruptedFlag(), FlagInterrupted, "partial trial"},
		"formatted":     {Flagf(FlagClientBound, "%s used %.0f%% CPU", "loader 1", 190.0), FlagClientBound, "loader 1 used 190% CPU"},
		"stopped early": {NewFlag(FlagStoppedEarly, "error rate 5% above 1%"), FlagStoppedEarly, "error rate 5% above 1%"},
		"old text":      {"target missed: 1110 of 2000 ops/s; Little's law needs 9", FlagTargetMissed, "1110 of 2000 ops/s; Little's law needs 9"},
		"unknown kind":  {"queue full: 3 times", "queue full", "3 times"},
		"no colon":      {"something odd", "something odd", "something odd"},
	} {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.kind, tc.flag.Kind())
			require.Equal(t, tc.details, tc.flag.Details())
			if name != "no colon" {
				require.Equal(t, tc.flag, NewFlag(tc.flag.Kind(), tc.flag.Details()), "a flag is its kind and details")
			}
		})
	}
	require.Equal(t, Flag("errors: 3 of 1000 operations failed"), ErrorsFlag(3, 1000), "the text on disk is unchanged")
	require.True(t, HasFlag([]Flag{InterruptedFlag(), ErrorsFlag(1, 2)}, FlagErrors))
	require.False(t, HasFlag([]Flag{InterruptedFlag()}, FlagErrors))
}

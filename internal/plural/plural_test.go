package plural

import "testing"

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 trials", 1: "1 trial", 2: "2 trials", -1: "-1 trials"} {
		if got := Count(n, "trial"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

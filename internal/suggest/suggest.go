// Package suggest finds the valid name a user most likely meant when a
// file or flag has a typo, so that errors can say "did you mean ...?".
package suggest

import "strings"

// Nearest returns the candidate closest to s by edit distance, if it is
// close enough to be a plausible typo: at most a third of the word's
// length, and never more than 3 edits. Failing that, the shortest
// candidate that s abbreviates (at least 4 characters: "requestdist").
// It returns "" when nothing is near. Case is ignored in s; candidates
// are compared as given.
func Nearest(s string, candidates []string) string {
	lower := strings.ToLower(s)
	best, bestD := "", min(3, max(1, len(s)/3))+1
	for _, c := range candidates {
		if d := Distance(lower, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best != "" || len(s) < 4 {
		return best
	}
	for _, c := range candidates {
		if strings.HasPrefix(c, lower) && (best == "" || len(c) < len(best)) {
			best = c
		}
	}
	return best
}

// Distance is the optimal string alignment distance between a and b, in
// bytes: Levenshtein's insertions, deletions and substitutions, plus the
// swap of two neighbours as one edit, the commonest typing slip.
func Distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			sub := 1
			if a[i-1] == b[j-1] {
				sub = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+sub)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

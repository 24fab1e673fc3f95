// Package plural counts things in English for messages: "1 trial",
// "3 trials". Every noun the program counts takes a plain "s".
package plural

import "strconv"

// Count is n and noun, the noun with an "s" unless n is 1.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

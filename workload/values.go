package workload

import (
	"math/rand/v2"
	"slices"
	"strconv"
)

// valueAlphabet has 64 printable characters that need no quoting or escaping
// in any database's text protocol, so one 64-bit random draw fills ten bytes.
const valueAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// appendRandomValue appends n random printable bytes to dst. YCSB's
// RandomByteIterator also produces printable ASCII; the exact bytes differ
// (they are random in both tools) but the size and character class match.
func appendRandomValue(dst []byte, r *rand.Rand, n int) []byte {
	dst = slices.Grow(dst, n)
	out := dst[len(dst) : len(dst)+n]
	for i := 0; i < len(out); i += 10 {
		bits := r.Uint64()
		chunk := out[i:min(i+10, len(out))]
		for j := range chunk {
			chunk[j] = valueAlphabet[bits&63]
			bits >>= 6
		}
	}
	return dst[:len(dst)+n]
}

// appendDeterministicValue appends the value YCSB writes for a field when
// dataintegrity is on: key + ":" + field, then repeatedly ":" and the Java
// String.hashCode of everything so far, cut to size bytes. Being the same
// function as YCSB's lets each tool verify data the other loaded.
func appendDeterministicValue(dst []byte, key, field string, size int) []byte {
	start := len(dst)
	dst = append(dst, key...)
	dst = append(dst, ':')
	dst = append(dst, field...)
	for len(dst)-start < size {
		h := javaStringHash(dst[start:])
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, int64(h), 10)
	}
	return dst[:start+size]
}

// javaStringHash is java.lang.String.hashCode for ASCII text: the sum of
// s[i]*31^(n-1-i) in 32-bit wrapping arithmetic.
func javaStringHash(s []byte) int32 {
	var h int32
	for _, c := range s {
		h = 31*h + int32(c)
	}
	return h
}

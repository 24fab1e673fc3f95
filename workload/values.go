package workload

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strconv"
)

// appendRandomValue appends n random printable bytes to dst: each byte is
// 6 random bits plus '0', so values are ASCII '0' to 'o', computed eight at a
// time in one 64-bit word. YCSB's RandomByteIterator also produces printable
// ASCII from 6 random bits per byte (from ' '); the bytes are random in both
// tools, the size and entropy match. Value generation was the largest cost
// of the harness at one table look-up per byte.
func appendRandomValue(dst []byte, r *rand.Rand, n int) []byte {
	const sixBits, zeros = 0x3f3f3f3f3f3f3f3f, 0x3030303030303030
	dst = slices.Grow(dst, n)
	out := dst[len(dst) : len(dst)+n]
	i := 0
	for ; i+8 <= len(out); i += 8 {
		binary.LittleEndian.PutUint64(out[i:], r.Uint64()&sixBits+zeros)
	}
	if i < len(out) {
		var tail [8]byte
		binary.LittleEndian.PutUint64(tail[:], r.Uint64()&sixBits+zeros)
		copy(out[i:], tail[:])
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

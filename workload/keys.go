package workload

import (
	"strconv"

	"github.com/dbarena/dbarena/workload/generator"
)

// keyPrefix is the literal every YCSB key starts with.
const keyPrefix = "user"

// AppendKey appends YCSB's key for keynum to dst: "user", then the key
// number (FNV-hashed unless the insert order is ordered) in decimal,
// left-padded with zeros to zeropadding digits. The result is byte-identical
// to YCSB's CoreWorkload.buildKeyName, so data loaded by either tool can be
// read by the other.
func AppendKey(dst []byte, keynum int64, hashed bool, zeroPadding int) []byte {
	if hashed {
		keynum = generator.FNVHash64(keynum)
	}
	var digits [24]byte
	d := strconv.AppendInt(digits[:0], keynum, 10)
	dst = append(dst, keyPrefix...)
	for i := len(d); i < zeroPadding; i++ {
		dst = append(dst, '0')
	}
	return append(dst, d...)
}

// KeyName returns YCSB's key for keynum as a string.
func KeyName(keynum int64, hashed bool, zeroPadding int) string {
	return string(AppendKey(nil, keynum, hashed, zeroPadding))
}

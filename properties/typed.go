package properties

import (
	"fmt"
	"strconv"
	"strings"
)

// String returns the value of key, or def when it is not set.
func (s *Set) String(key, def string) string {
	if v, _, ok := s.Lookup(key); ok {
		return v
	}
	return def
}

// badValue is the error for a value of the wrong form.
func badValue(src Source, key, value, want string) error {
	return fmt.Errorf("%s: property %q=%q: want %s", src, key, value, want)
}

// Int64 returns key as an integer, or def when it is not set.
func (s *Set) Int64(key string, def int64) (int64, error) {
	v, src, ok := s.Lookup(key)
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, badValue(src, key, v, "an integer")
	}
	return n, nil
}

// Int returns key as an int, or def when it is not set.
func (s *Set) Int(key string, def int) (int, error) {
	n, err := s.Int64(key, int64(def))
	if err != nil {
		return 0, err
	}
	if int64(int(n)) != n {
		_, src, _ := s.Lookup(key)
		return 0, fmt.Errorf("%s: property %q=%d: out of range", src, key, n)
	}
	return int(n), nil
}

// Float returns key as a number, or def when it is not set.
func (s *Set) Float(key string, def float64) (float64, error) {
	v, src, ok := s.Lookup(key)
	if !ok {
		return def, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return 0, badValue(src, key, v, "a number")
	}
	return f, nil
}

// Bool returns key as a boolean, or def when it is not set. Only "true" and
// "false" (any case) are accepted: Java would read "yes" as false, which
// hides typos.
func (s *Set) Bool(key string, def bool) (bool, error) {
	v, src, ok := s.Lookup(key)
	if !ok {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, badValue(src, key, v, "true or false")
}

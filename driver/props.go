package driver

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Props reads one driver's properties: every key is looked up under the
// driver's prefix, and every parse error names the full property and what
// was expected.
type Props struct {
	prefix string
	m      map[string]string
}

// NewProps returns a reader for the properties under prefix ("postgres").
func NewProps(prefix string, m map[string]string) Props {
	return Props{prefix: prefix, m: m}
}

// Key returns the full property name of a driver key.
func (p Props) Key(key string) string { return p.prefix + "." + key }

// Has reports whether the property was given.
func (p Props) Has(key string) bool {
	_, ok := p.m[p.Key(key)]
	return ok
}

// Core returns a core (unprefixed) property such as table or fieldcount.
func (p Props) Core(key, def string) string {
	if v, ok := p.m[key]; ok {
		return v
	}
	return def
}

// String returns the property or def.
func (p Props) String(key, def string) string {
	if v, ok := p.m[p.Key(key)]; ok {
		return strings.TrimSpace(v)
	}
	return def
}

// Int returns the property as an integer at least min, or def.
func (p Props) Int(key string, def, min int) (int, error) {
	v, ok := p.m[p.Key(key)]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < min {
		return 0, fmt.Errorf("%s=%q: want an integer >= %d", p.Key(key), v, min)
	}
	return n, nil
}

// Bool returns the property as a boolean, or def.
func (p Props) Bool(key string, def bool) (bool, error) {
	v, ok := p.m[p.Key(key)]
	if !ok {
		return def, nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return false, fmt.Errorf("%s=%q: want true or false", p.Key(key), v)
	}
	return b, nil
}

// Duration returns the property as a duration, or def. A bare number is
// read as milliseconds, the unit YCSB's bindings use for timeouts.
func (p Props) Duration(key string, def time.Duration) (time.Duration, error) {
	v, ok := p.m[p.Key(key)]
	if !ok {
		return def, nil
	}
	s := strings.TrimSpace(v)
	// A count of milliseconds past time.Duration's range (292 years)
	// would wrap to a negative timeout.
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 && n <= math.MaxInt64/int64(time.Millisecond) {
		return time.Duration(n) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s=%q: want a duration such as 5s or 500ms (a bare number is milliseconds)", p.Key(key), v)
	}
	return d, nil
}

// Enum returns the property, which must be one of choices (compared
// without case), or def.
func (p Props) Enum(key, def string, choices ...string) (string, error) {
	v, ok := p.m[p.Key(key)]
	if !ok {
		return def, nil
	}
	s := strings.TrimSpace(v)
	for _, c := range choices {
		if strings.EqualFold(s, c) {
			return c, nil
		}
	}
	return "", fmt.Errorf("%s=%q: want one of %s", p.Key(key), v, strings.Join(choices, ", "))
}

// ConfigError is a driver's properties that are wrong in themselves (a
// value of the wrong kind, a missing setting, two that conflict), found
// before any connection: bad input, not a failure of the database.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// BadConfig marks err, from parsing a driver's properties, as a
// [ConfigError]; nil stays nil.
func BadConfig(err error) error {
	if err == nil {
		return nil
	}
	return &ConfigError{Err: err}
}

// Checker parses a driver's properties as its Opener would, for the
// given number of workers, and connects to nothing: nil when they are
// right, a [ConfigError] saying what is wrong otherwise.
type Checker func(props map[string]string, workers int) error

// CheckWith makes a [Checker] of a driver's configuration parser.
func CheckWith[C any](parse func(props map[string]string, workers int) (C, error)) Checker {
	return func(props map[string]string, workers int) error {
		_, err := parse(props, workers)
		return BadConfig(err)
	}
}

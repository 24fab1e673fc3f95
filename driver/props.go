package driver

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbarena/dbarena/internal/redact"
	"github.com/dbarena/dbarena/internal/suggest"
)

// Props reads one driver's properties: every key is looked up under the
// driver's prefix, and every parse error names the full property and what
// was expected.
type Props struct {
	prefix string
	m      map[string]string
	// read holds every property looked up (full names), shared by the
	// copies of a Props: what was given under the prefix and never
	// read is unknown to the driver (Unknown).
	read map[string]bool
	// aliased are the aliases whose other name was given (see
	// NewPropsAliased), for GivenAs.
	aliased []Alias
}

// Alias is a setting a YCSB binding (or a fork of one) spells otherwise:
// Theirs is its full property name ("as.host", "dynamodb.connectMax"),
// Ours the driver's key that reads the same setting ("host", "pool"), so
// that a YCSB property file works unchanged.
type Alias struct{ Theirs, Ours string }

// NewPropsAliased is NewProps over m with each alias's value, when given
// under its other name, read under the driver's. The same setting given
// under both names with different values is an error naming both.
func NewPropsAliased(prefix string, m map[string]string, aliases []Alias) (Props, error) {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	p := Props{prefix: prefix, m: out, read: map[string]bool{}}
	for _, a := range aliases {
		theirs, has := m[a.Theirs]
		if !has {
			continue
		}
		p.read[a.Theirs] = true
		ours := p.Key(a.Ours)
		if v, has := m[ours]; has && strings.TrimSpace(v) != strings.TrimSpace(theirs) {
			return p, fmt.Errorf("%s=%q and %s=%q: both set the same thing; keep one",
				a.Theirs, redact.Value(a.Theirs, theirs), ours, redact.Value(ours, v))
		}
		out[ours] = theirs
		p.aliased = append(p.aliased, a)
	}
	return p, nil
}

// GivenAs makes an error about a property the user set under another
// name (see NewPropsAliased) say so, since the message names the
// driver's; nil stays nil.
func (p Props) GivenAs(err error) error {
	if err == nil {
		return nil
	}
	for _, a := range p.aliased {
		if ours := p.Key(a.Ours); strings.Contains(err.Error(), ours) {
			err = fmt.Errorf("%w (%s is read as %s)", err, a.Theirs, ours)
		}
	}
	return err
}

// NewProps returns a reader for the properties under prefix ("postgres").
func NewProps(prefix string, m map[string]string) Props {
	return Props{prefix: prefix, m: m, read: map[string]bool{}}
}

// lookup is the property of a driver key, recorded as read.
func (p Props) lookup(key string) (string, bool) {
	full := p.Key(key)
	if p.read != nil {
		p.read[full] = true
	}
	v, ok := p.m[full]
	return v, ok
}

// Unknown reports every property given under the driver's prefix that
// is neither one of the driver's keys (declared: every key its parser
// reads in any configuration, as "url", "connect.timeout") nor read by
// this parse: a misspelt name ("postgres.uri") that would otherwise be
// ignored, the run then failing on a default. Each is named with the
// nearest of the driver's names. Call it last, when the others parsed;
// nil when none is unknown.
func (p Props) Unknown(declared ...string) error {
	known := map[string]bool{}
	for k := range p.read {
		known[k] = true
	}
	for _, k := range declared {
		known[p.Key(k)] = true
	}
	names := slices.Sorted(maps.Keys(known))
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(p.m)) {
		if !strings.HasPrefix(k, p.prefix+".") || known[k] {
			continue
		}
		msg := fmt.Sprintf("%s: the %s driver has no such property", k, p.prefix)
		if near := suggest.Nearest(k, names); near != "" {
			msg += fmt.Sprintf("; did you mean %s?", near)
		} else {
			msg += fmt.Sprintf(" (it reads %s)", strings.Join(names, ", "))
		}
		errs = append(errs, errors.New(msg))
	}
	return errors.Join(errs...)
}

// Key returns the full property name of a driver key.
func (p Props) Key(key string) string { return p.prefix + "." + key }

// Has reports whether the property was given.
func (p Props) Has(key string) bool {
	_, ok := p.lookup(key)
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
	if v, ok := p.lookup(key); ok {
		return strings.TrimSpace(v)
	}
	return def
}

// Int returns the property as an integer at least min, or def.
func (p Props) Int(key string, def, min int) (int, error) {
	v, ok := p.lookup(key)
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
	v, ok := p.lookup(key)
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
	v, ok := p.lookup(key)
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
	v, ok := p.lookup(key)
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

// HostList reads the comma-separated list of host or host:port that key
// holds into host:port addresses; a host without a port (a bare name or
// IPv6 address) gets port. An empty list is an error.
func HostList(key, list string, port int) ([]string, error) {
	var out []string
	for _, h := range strings.Split(list, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		host, ps, err := net.SplitHostPort(h)
		if err != nil {
			out = append(out, net.JoinHostPort(strings.Trim(h, "[]"), strconv.Itoa(port)))
			continue
		}
		if n, err := strconv.Atoi(ps); err != nil || n < 1 || n > 65535 || host == "" {
			return nil, fmt.Errorf("%s=%q: %q is not host or host:port", key, list, h)
		}
		out = append(out, h)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s=%q: want at least one host, comma-separated, each host or host:port", key, list)
	}
	return out, nil
}

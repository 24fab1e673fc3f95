package redact

import (
	"net/url"
	"slices"
	"strings"
)

// URL hides every password of a connection string, whatever its form,
// and returns anything else as it is:
//
//   - URL user info: "postgres://u:p@h/db", "redis://:p@h:6379" (empty
//     user), "mongodb://u:p@h1,h2/db";
//   - URL query parameters with a secret name: "?password=p",
//     "?sslpassword=p", "?tlsCertificateKeyFilePassword=p";
//   - libpq key=value strings: "host=h password=p", "password='a b\'c'"
//     (quoted, with backslash escapes);
//   - MySQL DSNs: "u:p@tcp(h:3306)/db?params".
//
// Booleans are never masked: "allowCleartextPasswords=true" names a
// setting, not a secret.
func URL(v string) string {
	spans := credentials(v)
	for i := len(spans) - 1; i >= 0; i-- {
		s := spans[i]
		v = v[:s.start] + Mask + v[s.end:]
	}
	return v
}

// Passwords returns the passwords in a connection string of any form URL
// reads, decoded as the database client decodes them ("p%40ss" in a URL
// is "p@ss").
func Passwords(v string) []string {
	var out []string
	for _, s := range credentials(v) {
		out = append(out, s.value)
	}
	return out
}

// span is one secret in a connection string: v[start:end] as written,
// value as the client reads it.
type span struct {
	start, end int
	value      string
}

// credentials finds the secrets of a connection string, in order.
func credentials(v string) []span {
	if i := strings.Index(v, "://"); i >= 0 {
		return urlSpans(v, i+len("://"))
	}
	if isKeyValue(v) {
		return kvSpans(v)
	}
	return dsnSpans(v)
}

// urlSpans reads scheme://[user[:password]@]host[/path][?query][#frag];
// auth is where the authority starts.
func urlSpans(v string, auth int) []span {
	rest := v[auth:]
	// The authority ends at the path, query or fragment: an @ after
	// that is data.
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	var out []span
	if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
		if colon := strings.IndexByte(rest[:at], ':'); colon >= 0 {
			raw := rest[colon+1 : at]
			out = append(out, span{auth + colon + 1, auth + at, unescape(raw, url.PathUnescape)})
		}
	}
	return append(out, querySpans(v, auth+end)...)
}

// dsnSpans reads MySQL's [user[:password]@][net[(addr)]]/db[?params]. As
// go-sql-driver does, the user info ends at the last @ before the last
// slash, so the password may hold @ and /; it is not URL-escaped.
func dsnSpans(v string) []span {
	slash := strings.LastIndex(v, "/")
	end := slash
	if end < 0 {
		end = len(v)
	}
	var out []span
	if at := strings.LastIndex(v[:end], "@"); at >= 0 {
		if colon := strings.IndexByte(v[:at], ':'); colon >= 0 {
			out = append(out, span{colon + 1, at, v[colon+1 : at]})
		}
	}
	if slash >= 0 {
		out = append(out, querySpans(v, slash)...)
	}
	return out
}

// querySpans finds the secret parameters of the query that follows the
// first ? at or after from, up to a fragment.
func querySpans(v string, from int) []span {
	q := strings.IndexByte(v[from:], '?')
	if q < 0 {
		return nil
	}
	start := from + q + 1
	end := len(v)
	if h := strings.IndexByte(v[start:], '#'); h >= 0 {
		end = start + h
	}
	var out []span
	for i := start; i < end; {
		j := strings.IndexByte(v[i:end], '&')
		if j < 0 {
			j = end - i
		}
		pair := v[i : i+j]
		if k, val, ok := strings.Cut(pair, "="); ok && secretParam(unescape(k, url.QueryUnescape), val) {
			vs := i + len(k) + 1
			out = append(out, span{vs, vs + len(val), unescape(val, url.QueryUnescape)})
		}
		i += j + 1
	}
	return out
}

// isKeyValue reports whether v looks like a libpq key=value string: it
// starts with a keyword and an equals sign.
func isKeyValue(v string) bool {
	s := strings.TrimLeft(v, " \t\r\n")
	i := 0
	for i < len(s) && (s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9') {
		i++
	}
	return i > 0 && strings.HasPrefix(strings.TrimLeft(s[i:], " \t"), "=")
}

// kvSpans reads libpq's keyword = value pairs: a value is either quoted
// in single quotes or runs to the next space, and a backslash escapes the
// character after it in both.
func kvSpans(v string) []span {
	var out []span
	i := 0
	skip := func() {
		for i < len(v) && strings.IndexByte(" \t\r\n", v[i]) >= 0 {
			i++
		}
	}
	for {
		skip()
		if i >= len(v) {
			return out
		}
		ks := i
		for i < len(v) && v[i] != '=' && strings.IndexByte(" \t\r\n", v[i]) < 0 {
			i++
		}
		key := v[ks:i]
		skip()
		if i >= len(v) || v[i] != '=' {
			return out // malformed: the client refuses it too
		}
		i++
		skip()
		quoted := i < len(v) && v[i] == '\''
		if quoted {
			i++
		}
		vs := i
		var val strings.Builder
		for i < len(v) {
			c := v[i]
			if c == '\\' && i+1 < len(v) {
				val.WriteByte(v[i+1])
				i += 2
				continue
			}
			if quoted && c == '\'' || !quoted && strings.IndexByte(" \t\r\n", c) >= 0 {
				break
			}
			val.WriteByte(c)
			i++
		}
		if secretParam(key, val.String()) {
			out = append(out, span{vs, i, val.String()})
		}
		if quoted && i < len(v) {
			i++ // the closing quote
		}
	}
}

// secretParam reports whether a parameter of a connection string holds a
// secret: its name says so and its value is not a boolean switch.
func secretParam(key, value string) bool {
	if value == "" || !SecretKey(key) {
		return false
	}
	return !slices.Contains([]string{"true", "false", "yes", "no", "on", "off", "0", "1"}, strings.ToLower(value))
}

// unescape decodes s with f, or returns s when it is not valid escaping.
func unescape(s string, f func(string) (string, error)) string {
	if d, err := f(s); err == nil {
		return d
	}
	return s
}

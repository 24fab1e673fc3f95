// Package redact hides secrets (passwords, tokens, keys) in what dbarena
// writes for people to read: the manifest, the report, logs and error
// messages. Results directories are shared and published; a password in
// one is a leak.
package redact

import "strings"

// Mask is what a secret is replaced with.
const Mask = "REDACTED"

// SecretKey reports whether a property or setting named key holds a
// secret: its name contains password, passwd, secret, token or
// credential, or is a key of an access key pair.
func SecretKey(key string) bool {
	k := strings.ToLower(key)
	for _, s := range []string{"password", "passwd", "secret", "token", "credential", "accesskey", "access_key"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// URL hides the password of a user:password@host URL or DSN
// ("postgres://u:p@h/db", "u:p@tcp(h:3306)/db"); anything else is
// returned as it is.
func URL(v string) string {
	if head, _, tail, ok := splitPassword(v); ok {
		return head + Mask + tail
	}
	return v
}

// Password returns the password of a user:password@host URL or DSN, and
// whether there is one.
func Password(v string) (string, bool) {
	_, pw, _, ok := splitPassword(v)
	return pw, ok
}

// splitPassword cuts v around its password: v = head + pw + tail.
func splitPassword(v string) (head, pw, tail string, ok bool) {
	scheme, rest := "", v
	var end int
	if i := strings.Index(v, "://"); i >= 0 {
		scheme, rest = v[:i+3], v[i+3:]
		// The user info belongs to the authority, which ends at the
		// path, query or fragment: an @ after that is data.
		if end = strings.IndexAny(rest, "/?#"); end < 0 {
			end = len(rest)
		}
	} else if end = strings.LastIndex(rest, "/"); end < 0 {
		// A DSN such as MySQL's user:password@tcp(host)/db: the user
		// info ends at the last @ before the database name.
		end = len(rest)
	}
	at := strings.LastIndex(rest[:end], "@")
	if at < 0 {
		return "", "", "", false
	}
	user, pw, found := strings.Cut(rest[:at], ":")
	if !found {
		return "", "", "", false
	}
	return scheme + user + ":", pw, rest[at:], true
}

// Props returns a copy of props with secret values masked and passwords
// in URL-valued properties hidden.
func Props(props map[string]string) map[string]string {
	out := make(map[string]string, len(props))
	for k, v := range props {
		switch {
		case SecretKey(k):
			out[k] = Mask
		case strings.Contains(strings.ToLower(k), "url"), strings.Contains(v, "://"):
			out[k] = URL(v)
		default:
			out[k] = v
		}
	}
	return out
}

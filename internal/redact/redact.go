// Package redact hides secrets (passwords, tokens, keys) in what dbarena
// writes for people to read: the manifest, the report, logs and error
// messages. Results directories are shared and published; a password in
// one is a leak.
//
// Two tools work together. URL and Props mask the credentials whose place
// is known: secret-named properties and the passwords of connection
// strings in every form the drivers accept. A Redactor learns the secret
// values themselves and hides them wherever they appear, for the text
// nobody can parse: a database client's error message that echoes a DSN,
// a server that repeats the password it refused.
package redact

import "strings"

// Mask is what a secret is replaced with.
const Mask = "REDACTED"

// SecretKey reports whether a property or setting named key holds a
// secret: its name contains password, passwd, secret, token or
// credential, or is a key of an access key pair. A name ending in "file"
// or "path" holds where a secret is, not the secret
// (dynamodb.awsCredentialsFile): the path is shown, the content never.
func SecretKey(key string) bool {
	k := strings.ToLower(key)
	if strings.HasSuffix(k, "file") || strings.HasSuffix(k, "path") {
		return false
	}
	for _, s := range []string{"password", "passwd", "secret", "token", "credential", "accesskey", "access_key"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// Props returns a copy of props with every value as Value shows it.
func Props(props map[string]string) map[string]string {
	out := make(map[string]string, len(props))
	for k, v := range props {
		out[k] = Value(k, v)
	}
	return out
}

// Value is the value of property key as outputs show it: Mask for a
// secret-named key, else v with the passwords of connection strings (see
// URL) masked.
func Value(key, v string) string {
	if SecretKey(key) {
		return Mask
	}
	return URL(v)
}

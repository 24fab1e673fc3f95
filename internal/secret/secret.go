// Package secret keeps credentials out of experiment and property files.
// A value may refer to the environment, ${env:NAME}, or to a file,
// ${file:PATH}; the reference is what files, manifests and reports hold,
// and it is resolved only when a driver or a deployment needs the value.
// A secret written in clear where a reference belongs is an error, so a
// password never reaches a results directory by way of the spec text
// the manifest keeps.
package secret

import (
	"fmt"
	"os"
	"strings"

	"github.com/dbarena/dbarena/internal/bounds"
	"github.com/dbarena/dbarena/internal/redact"
)

const (
	envPrefix  = "${env:"
	filePrefix = "${file:"
)

// Has reports whether v holds a reference.
func Has(v string) bool {
	return strings.Contains(v, envPrefix) || strings.Contains(v, filePrefix)
}

// Resolve returns v with every reference replaced by its value: the
// environment variable, or the file's content without its final line
// break. An unset variable, an empty name, an unreadable file or one
// larger than bounds.MaxSecretBytes is an error that names the
// reference.
func Resolve(v string) (string, error) {
	r, _, err := Expand(v)
	return r, err
}

// Expand is Resolve that also returns the values it put in place of the
// references, so that the caller can keep them out of its output (see
// redact.Redactor): a value kept out of a file is kept out of what dbarena
// prints too.
func Expand(v string) (string, []string, error) {
	if !Has(v) {
		return v, nil, nil
	}
	var b strings.Builder
	var vals []string
	rest := v
	for {
		i := strings.Index(rest, "${")
		if i < 0 {
			b.WriteString(rest)
			return b.String(), vals, nil
		}
		b.WriteString(rest[:i])
		ref := rest[i:]
		end := strings.IndexByte(ref, '}')
		kind, name, isRef := "", "", false
		if end > 0 {
			switch {
			case strings.HasPrefix(ref, envPrefix):
				kind, name, isRef = "env", ref[len(envPrefix):end], true
			case strings.HasPrefix(ref, filePrefix):
				kind, name, isRef = "file", ref[len(filePrefix):end], true
			}
		}
		if !isRef {
			// Not one of ours ("${" in a password, say): keep it.
			b.WriteString("${")
			rest = ref[2:]
			continue
		}
		val, err := lookup(kind, name)
		if err != nil {
			return "", nil, err
		}
		vals = append(vals, val)
		b.WriteString(val)
		rest = ref[end+1:]
	}
}

func lookup(kind, name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("${%s:}: want a name after %q", kind, kind+":")
	}
	switch kind {
	case "env":
		v, ok := os.LookupEnv(name)
		if !ok {
			return "", fmt.Errorf("${env:%s}: the environment variable %s is not set", name, name)
		}
		return v, nil
	default:
		// A secret is a password, a token or a certificate: a file past
		// bounds.MaxSecretBytes (/dev/zero, a wrong path) is refused
		// before it fills the memory.
		data, err := bounds.ReadFile(name, bounds.MaxSecretBytes)
		if err != nil {
			return "", fmt.Errorf("${file:%s}: %w", name, err)
		}
		s := strings.TrimSuffix(string(data), "\n")
		return strings.TrimSuffix(s, "\r"), nil
	}
}

// ResolveMap returns a copy of m with every value resolved; an error
// names the key. The values put in place of references, and the secrets
// of the resolved map (see redact.Redactor.AddProps), are added to hide,
// which may be nil.
func ResolveMap(m map[string]string, hide *redact.Redactor) (map[string]string, error) {
	out := make(map[string]string, len(m))
	for k, v := range m {
		r, vals, err := Expand(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		hide.Add(vals...)
		out[k] = r
	}
	hide.AddProps(out)
	return out, nil
}

// InClear reports whether key: value puts a credential in clear: a
// secret-named key (password, token, secret key...) whose value is not a
// reference, or a connection string (URL, DSN, key=value) with a password
// that is not one.
func InClear(key, value string) bool {
	if value == "" {
		return false
	}
	if redact.SecretKey(key) {
		return !Has(value)
	}
	for _, pw := range redact.Passwords(value) {
		if pw != "" && !Has(pw) {
			return true
		}
	}
	return false
}

// Hint is how an error about a secret in clear tells the user to fix it.
const Hint = "write ${env:NAME} (or ${file:PATH}) and set the value outside the file"

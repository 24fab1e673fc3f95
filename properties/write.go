package properties

import (
	"fmt"
	"io"
	"strings"
)

// Write writes the set as a property file that Parse reads back to the
// same keys and values: one key=value line per property, keys sorted,
// with the characters the format gives a meaning escaped.
func (s *Set) Write(w io.Writer) error {
	var b strings.Builder
	for _, k := range s.Keys() {
		v, _, _ := s.Lookup(k)
		b.WriteString(escape(k, true))
		b.WriteByte('=')
		b.WriteString(escape(v, false))
		b.WriteByte('\n')
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write properties: %w", err)
	}
	return nil
}

// escape protects backslashes and line breaks everywhere, the separators
// and comment marks in keys, and leading white space in values.
func escape(s string, key bool) string {
	var b strings.Builder
	for i, c := range s {
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\f':
			b.WriteString(`\f`)
		case key && strings.ContainsRune("=: #!", c), !key && i == 0 && c == ' ':
			b.WriteByte('\\')
			b.WriteRune(c)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

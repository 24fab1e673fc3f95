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
// and comment marks in keys, and leading white space in values. It works
// on bytes, not runes: every character it escapes is ASCII, and a value
// that is not UTF-8 (Parse keeps it as it was) must be written unchanged,
// not as U+FFFD.
func escape(s string, key bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
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
		case key && strings.IndexByte("=: #!", c) >= 0, !key && i == 0 && c == ' ':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Package properties reads YCSB property files (the Java .properties format)
// and -p overrides, remembering where every value came from so that an
// error can name the file and line to fix.
package properties

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/internal/bounds"
)

// Source says where a value came from: a file and line, or a command-line
// option when Line is 0.
type Source struct {
	File string
	Line int
}

// String returns "file:line", or the option name.
func (s Source) String() string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	if s.File == "" {
		return "default"
	}
	return s.File
}

type entry struct {
	value string
	src   Source
}

// Set is a set of properties with their sources. The zero value is not
// usable; call New.
type Set struct {
	m map[string]entry
}

// New returns an empty set.
func New() *Set { return &Set{m: make(map[string]entry)} }

// Set sets key to value.
func (s *Set) Set(key, value string, src Source) { s.m[key] = entry{value: value, src: src} }

// Merge copies every property of o into s; o's values win.
func (s *Set) Merge(o *Set) {
	for k, e := range o.m {
		s.m[k] = e
	}
}

// Lookup returns the value and source of key.
func (s *Set) Lookup(key string) (string, Source, bool) {
	e, ok := s.m[key]
	return e.value, e.src, ok
}

// Keys returns the keys in sorted order.
func (s *Set) Keys() []string {
	out := make([]string, 0, len(s.m))
	for k := range s.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Map returns a copy of the properties as a plain map.
func (s *Set) Map() map[string]string {
	out := make(map[string]string, len(s.m))
	for k, e := range s.m {
		out[k] = e.value
	}
	return out
}

// Load applies YCSB's precedence: the files in order, each overriding the
// ones before it, then every "key=value" override, which wins over all
// files whatever its position on the command line.
func Load(files []string, overrides []string) (*Set, error) {
	s := New()
	for _, f := range files {
		fs, err := ParseFile(f)
		if err != nil {
			return nil, err
		}
		s.Merge(fs)
	}
	for _, kv := range overrides {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("-p %q: want key=value", kv)
		}
		s.Set(k, strings.TrimSpace(v), Source{File: "-p"})
	}
	return s, nil
}

// ParseFile reads a property file of at most bounds.MaxFileBytes.
func ParseFile(path string) (*Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("property file: %w", err)
	}
	defer f.Close()
	s, err := Parse(bounds.NewReader(f, path, bounds.MaxFileBytes), path)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Parse reads properties in the Java .properties syntax: "key=value",
// "key: value" or "key value"; "#" and "!" comment lines; a backslash at the
// end of a line continues it; \t \n \r \f \uXXXX and \-escaped characters.
// name is used in error messages. A line may hold up to maxLineBytes.
func Parse(r io.Reader, name string) (*Set, error) {
	s := New()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLineBytes)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		start := lineNo
		line := strings.TrimLeft(sc.Text(), " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		// A builder, not line = line + next: joining 300,000 continued
		// lines that way took 22 s for a 1.2 MB file.
		var joined strings.Builder
		for continued(line) && sc.Scan() {
			lineNo++
			joined.WriteString(line[:len(line)-1])
			line = strings.TrimLeft(sc.Text(), " \t\f")
			if joined.Len()+len(line) > maxLineBytes {
				return nil, fmt.Errorf("%s:%d: line continued past the %s limit of a line", name, start, bounds.FormatBytes(maxLineBytes))
			}
		}
		if continued(line) {
			line = line[:len(line)-1]
		}
		if joined.Len() > 0 {
			joined.WriteString(line)
			line = joined.String()
		}
		key, value := splitKeyValue(line)
		k, err := unescape(key)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: key %q: %w", name, start, key, err)
		}
		v, err := unescape(value)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: value of %q: %w", name, start, k, err)
		}
		s.Set(k, v, Source{File: name, Line: start})
	}
	if err := sc.Err(); err != nil {
		var tl *bounds.TooLargeError
		switch {
		case errors.As(err, &tl):
			return nil, err
		case errors.Is(err, bufio.ErrTooLong):
			return nil, fmt.Errorf("%s:%d: line longer than the %s limit", name, lineNo+1, bounds.FormatBytes(maxLineBytes))
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// maxLineBytes bounds one line of a property file: values are numbers,
// names and URLs, and a certificate inlined with \n escapes is a few KiB.
const maxLineBytes = 16 << 20

// continued reports whether line ends in an odd number of backslashes.
func continued(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitKeyValue splits at the first unescaped '=', ':' or whitespace,
// skipping whitespace around the separator.
func splitKeyValue(line string) (string, string) {
	i := 0
	for i < len(line) {
		c := line[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	if i >= len(line) {
		return line, ""
	}
	key := line[:i]
	rest := strings.TrimLeft(line[i:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	return key, rest
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i == len(s)-1 {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if len(s)-i-1 < 4 {
				return "", fmt.Errorf(`incomplete \u escape`)
			}
			n, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf(`bad \u escape %q`, s[i-1:i+5])
			}
			b.WriteRune(rune(n))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

package sysmetrics

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// metric is one sample line of the Prometheus text format.
type metric struct {
	name   string
	labels map[string]string
	value  float64
	// millis is the line's timestamp, milliseconds since the Unix epoch,
	// or 0 when it carries none: a kubelet stamps each figure with the
	// time it read it.
	millis int64
}

// parseExposition reads the Prometheus text exposition format (version
// 0.0.4): "name{label="value",...} value [timestamp]" lines and "#"
// comments. It is written here rather than taken from
// prometheus/common/expfmt, which is not among the module's dependencies
// and would bring protobuf and two more modules for the ten metric families we
// read. It is strict about syntax, so an answer that is not an exposition
// (an HTML page at a wrong URL) fails rather than reading as no metrics.
func parseExposition(r io.Reader) ([]metric, error) {
	var out []metric
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		m, err := parseMetricLine(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

func parseMetricLine(text string) (metric, error) {
	m := metric{labels: map[string]string{}}
	i := strings.IndexAny(text, "{ \t")
	if i <= 0 {
		return m, fmt.Errorf("no value in %q", text)
	}
	m.name = text[:i]
	rest := text[i:]
	if rest[0] == '{' {
		var err error
		if rest, err = parseLabels(rest[1:], m.labels); err != nil {
			return m, fmt.Errorf("%s: %w", m.name, err)
		}
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return m, fmt.Errorf("%s: no value", m.name)
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return m, fmt.Errorf("%s: value %q: %w", m.name, fields[0], err)
	}
	m.value = v
	if len(fields) > 1 {
		// A timestamp that does not parse is left out, not an error: the
		// value is what the readers need.
		m.millis, _ = strconv.ParseInt(fields[1], 10, 64)
	}
	return m, nil
}

// parseLabels reads `a="x",b="y"}` into labels and returns what follows
// the closing brace. Values may hold escaped \\, \" and \n.
func parseLabels(s string, labels map[string]string) (string, error) {
	for {
		s = strings.TrimLeft(s, " ,")
		if s == "" {
			return "", fmt.Errorf("unterminated labels")
		}
		if s[0] == '}' {
			return s[1:], nil
		}
		eq := strings.IndexByte(s, '=')
		if eq <= 0 || eq+1 >= len(s) || s[eq+1] != '"' {
			return "", fmt.Errorf("bad label in %q", s)
		}
		name := strings.TrimSpace(s[:eq])
		var val strings.Builder
		j := eq + 2
		for ; j < len(s) && s[j] != '"'; j++ {
			if s[j] == '\\' && j+1 < len(s) {
				j++
				if s[j] == 'n' {
					val.WriteByte('\n')
					continue
				}
			}
			val.WriteByte(s[j])
		}
		if j >= len(s) {
			return "", fmt.Errorf("unterminated value of label %s", name)
		}
		labels[name] = val.String()
		s = s[j+1:]
	}
}

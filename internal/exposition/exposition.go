// Package exposition reads Prometheus' text exposition format (version
// 0.0.4), the pages node_exporter, a kubelet and ScyllaDB serve. It is
// written here rather than taken from prometheus/common/expfmt, which is
// not among the module's dependencies and would bring protobuf and two
// more modules for the few metric families dbarena reads. It is strict
// about syntax, so an answer that is not an exposition (an HTML page at a
// wrong URL) fails rather than reading as no metrics.
package exposition

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Metric is one sample line of the text format.
type Metric struct {
	Name   string
	Labels map[string]string
	Value  float64
	// Millis is the line's timestamp, milliseconds since the Unix epoch,
	// or 0 when it carries none: a kubelet stamps each figure with the
	// time it read it.
	Millis int64
}

// Parse reads "name{label="value",...} value [timestamp]" lines and "#"
// comments; an error names the line.
func Parse(r io.Reader) ([]Metric, error) {
	var out []Metric
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

func parseMetricLine(text string) (Metric, error) {
	m := Metric{Labels: map[string]string{}}
	i := strings.IndexAny(text, "{ \t")
	if i <= 0 {
		return m, fmt.Errorf("no value in %q", text)
	}
	m.Name = text[:i]
	rest := text[i:]
	if rest[0] == '{' {
		var err error
		if rest, err = parseLabels(rest[1:], m.Labels); err != nil {
			return m, fmt.Errorf("%s: %w", m.Name, err)
		}
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return m, fmt.Errorf("%s: no value", m.Name)
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return m, fmt.Errorf("%s: value %q: %w", m.Name, fields[0], err)
	}
	m.Value = v
	if len(fields) > 1 {
		// A timestamp that does not parse is left out, not an error: the
		// value is what the readers need.
		m.Millis, _ = strconv.ParseInt(fields[1], 10, 64)
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
		if !labelName(name) {
			return "", fmt.Errorf("bad label name %q", name)
		}
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

// labelName reports whether s is a label name as the exposition format
// defines it, [a-zA-Z_][a-zA-Z0-9_]*: a page that breaks the rule is
// not one of the exporters' and reading it on would guess.
func labelName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return true
}

// MaxPage bounds the page Fetch reads: node_exporter's is about 60 KB,
// ScyllaDB's a few MB on a many-core node, and a wrong URL must not fill
// memory.
const MaxPage = 16 << 20

// Fetch gets a text page at url, at most MaxPage of it, and returns its
// metrics and how long the server took to start answering.
func Fetch(ctx context.Context, client *http.Client, url string) ([]Metric, time.Duration, error) {
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, err
	}
	// The classic text format, not protobuf or OpenMetrics.
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	took := time.Since(start)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("HTTP %s", resp.Status)
	}
	// One byte more than allowed tells a page too long from one that
	// fits exactly: a cut page could end in half a number.
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxPage+1))
	if err != nil {
		return nil, 0, err
	}
	if len(body) > MaxPage {
		return nil, 0, fmt.Errorf("page longer than %d bytes", MaxPage)
	}
	metrics, err := Parse(bytes.NewReader(body))
	return metrics, took, err
}

package sysmetrics

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// nodeExporter scrapes a remote host's node_exporter.
type nodeExporter struct {
	name, role, url string
	client          *http.Client
	r               rater
}

// NewNodeExporter samples a host through node_exporter's /metrics: CPU
// from node_cpu_seconds_total (all modes but idle and iowait, 100 per
// core), memory in use (MemTotal - MemAvailable), disk bytes and completed
// operations summed over devices (loop and ram left out) and network
// bytes summed over interfaces. client nil uses a 5-second timeout.
func NewNodeExporter(name, role, url string, client *http.Client) Source {
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Second}
	}
	return &nodeExporter{name: name, role: role, url: url, client: client}
}

func (n *nodeExporter) Name() string { return n.name }
func (n *nodeExporter) Role() string { return n.role }

// Sample implements Source.
func (n *nodeExporter) Sample(now time.Time) (Sample, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), n.client.Timeout+time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.url, nil)
	if err != nil {
		return Sample{}, false, fmt.Errorf("%s: %w", n.url, err)
	}
	resp, err := n.client.Do(req)
	if err != nil {
		return Sample{}, false, fmt.Errorf("scrape %s: %w", n.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Sample{}, false, fmt.Errorf("scrape %s: HTTP %s", n.url, resp.Status)
	}
	samples, err := parseExposition(resp.Body)
	if err != nil {
		return Sample{}, false, fmt.Errorf("scrape %s: %w", n.url, err)
	}
	c := nodeCounters(samples)
	s, ok := n.r.next(c, now)
	s.Host, s.Role = n.name, n.role
	return s, ok, nil
}

// nodeCounters reads the cumulative counters out of a scrape.
func nodeCounters(samples []metric) counters {
	var c counters
	for _, m := range samples {
		disk := !strings.HasPrefix(m.labels["device"], "loop") && !strings.HasPrefix(m.labels["device"], "ram")
		switch m.name {
		case "node_cpu_seconds_total":
			if mode := m.labels["mode"]; mode != "idle" && mode != "iowait" {
				c.cpuSeconds += m.value
			}
		case "node_memory_MemTotal_bytes":
			c.memory += m.value
		case "node_memory_MemAvailable_bytes":
			c.memory -= m.value
		case "node_disk_read_bytes_total":
			if disk {
				c.diskRead += m.value
			}
		case "node_disk_written_bytes_total":
			if disk {
				c.diskWrite += m.value
			}
		case "node_disk_reads_completed_total":
			if disk {
				c.diskReadOps += m.value
			}
		case "node_disk_writes_completed_total":
			if disk {
				c.diskWriteOps += m.value
			}
		case "node_network_receive_bytes_total":
			c.netRx += m.value
		case "node_network_transmit_bytes_total":
			c.netTx += m.value
		}
	}
	return c
}

// metric is one sample line of the Prometheus text format.
type metric struct {
	name   string
	labels map[string]string
	value  float64
}

// parseExposition reads the Prometheus text exposition format (version
// 0.0.4): "name{label="value",...} value [timestamp]" lines and "#"
// comments. It is written here rather than taken from
// prometheus/common/expfmt because that package brings protobuf and two
// other modules for the eight counters we read.
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

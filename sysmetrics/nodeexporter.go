package sysmetrics

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/dbarena/dbarena/internal/exposition"
)

// scrapeTimeout bounds one scrape. node_exporter answers in tens of
// milliseconds; a round of the collector waits for its slowest source, so
// a hung host must not hold the others' samples for long.
const scrapeTimeout = 2 * time.Second

// nodeExporter scrapes a host's node_exporter.
type nodeExporter struct {
	name, role, url string
	client          *http.Client
	r               rater
}

// NewNodeExporter samples a host through node_exporter's metrics page at
// url (".../metrics"):
//   - CPU from node_cpu_seconds_total, every mode but idle and iowait, 100
//     per core as for the other sources;
//   - memory in use, node_memory_MemTotal_bytes minus
//     node_memory_MemAvailable_bytes;
//   - disk bytes and completed operations (node_disk_read_bytes_total,
//     node_disk_written_bytes_total, node_disk_reads_completed_total,
//     node_disk_writes_completed_total) summed over whole disks (see
//     countedDisk);
//   - network bytes (node_network_receive_bytes_total,
//     node_network_transmit_bytes_total) summed over every interface.
//
// Rates span the host's own clock between scrapes (node_time_seconds),
// so network delay does not skew them. A figure the exporter does not
// serve (its collector disabled) is NaN. A nil client uses
// http.DefaultTransport; every scrape is bounded by two seconds anyway.
func NewNodeExporter(name, role, url string, client *http.Client) Source {
	if client == nil {
		client = &http.Client{}
	}
	return &nodeExporter{name: name, role: role, url: url, client: client}
}

// Name implements Source.
func (n *nodeExporter) Name() string { return n.name }

// Role implements Source.
func (n *nodeExporter) Role() string { return n.role }

// Sample implements Source.
func (n *nodeExporter) Sample(now time.Time) (Sample, bool, error) {
	c, took, err := n.scrape()
	if err != nil {
		return Sample{}, false, fmt.Errorf("scrape %s: %w", n.url, err)
	}
	// The exporter read its counters between our request and its answer
	// (it writes nothing before it has gathered everything).
	s, ok := n.r.next(c, now.Add(took/2))
	s.Host, s.Role = n.name, n.role
	return s, ok, nil
}

// scrape fetches and reads one scrape, and returns how long the host took
// to start answering.
func (n *nodeExporter) scrape() (counters, time.Duration, error) {
	metrics, took, err := fetchExposition(n.client, n.url)
	if err != nil {
		return counters{}, 0, err
	}
	c, err := nodeCounters(metrics)
	return c, took, err
}

// fetchExposition fetches a Prometheus text page within scrapeTimeout.
func fetchExposition(client *http.Client, url string) ([]exposition.Metric, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	return exposition.Fetch(ctx, client, url)
}

// nodeCounters reads the cumulative counters out of a scrape. A family
// that is absent leaves its figure NaN; a scrape with none of them is not
// node_exporter's.
func nodeCounters(metrics []exposition.Metric) (counters, error) {
	c := unmeasured()
	total, avail := math.NaN(), math.NaN()
	found := false
	add := func(to *float64, v float64, counted bool) {
		found = true
		if !counted {
			v = 0
		}
		*to = known(*to) + v
	}
	for _, m := range metrics {
		disk := countedDisk(m.Labels["device"])
		switch m.Name {
		case "node_cpu_seconds_total":
			mode := m.Labels["mode"]
			add(&c.cpuSeconds, m.Value, mode != "idle" && mode != "iowait")
		case "node_memory_MemTotal_bytes":
			add(&total, m.Value, true)
		case "node_memory_MemAvailable_bytes":
			add(&avail, m.Value, true)
		case "node_disk_read_bytes_total":
			add(&c.diskRead, m.Value, disk)
		case "node_disk_written_bytes_total":
			add(&c.diskWrite, m.Value, disk)
		case "node_disk_reads_completed_total":
			add(&c.diskReadOps, m.Value, disk)
		case "node_disk_writes_completed_total":
			add(&c.diskWriteOps, m.Value, disk)
		case "node_disk_io_time_seconds_total":
			if disk {
				if c.diskBusy == nil {
					c.diskBusy = map[string]float64{}
				}
				c.diskBusy[m.Labels["device"]] = m.Value
			}
		case "node_network_receive_bytes_total":
			add(&c.netRx, m.Value, true)
		case "node_network_transmit_bytes_total":
			add(&c.netTx, m.Value, true)
		case "node_time_seconds":
			c.hostClock = m.Value
		}
	}
	if !found {
		return counters{}, errors.New("none of node_exporter's CPU, memory, disk or network metrics in the answer")
	}
	c.memory = total - avail
	return c, nil
}

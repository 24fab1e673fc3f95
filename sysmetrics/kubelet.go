package sysmetrics

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/dbarena/dbarena/internal/exposition"
)

// kubeletPod samples one Kubernetes pod through its node's kubelet.
type kubeletPod struct {
	name, role, url, namespace, pod string
	client                          *http.Client
	prev                            counters
	prevMillis                      int64
}

// NewKubeletPod samples the pod namespace/pod through the resource
// metrics page of the kubelet on its node (url ends in
// /metrics/resource; through the API server it is
// /api/v1/nodes/NODE/proxy/metrics/resource):
//   - CPU from pod_cpu_usage_seconds_total, 100 per core;
//   - memory from pod_memory_working_set_bytes, the figure the kubelet
//     evicts and the kernel's OOM killer acts on.
//
// Disk and network are NaN: the page has none per pod. The kubelet reads
// its figures on its own schedule (every housekeeping interval, 10 s by
// default) and stamps each with the time it read it; rates span those
// stamps, and a scrape that brings no newer reading yields no sample, so
// a cached figure never reads as an idle second. A sample carries the
// time of the scrape that brought it, on this machine's clock; its rates
// cover the kubelet's own last interval, which ended up to one
// housekeeping interval earlier.
func NewKubeletPod(name, role, url, namespace, pod string, client *http.Client) Source {
	if client == nil {
		client = &http.Client{}
	}
	return &kubeletPod{name: name, role: role, url: url, namespace: namespace, pod: pod, client: client}
}

// Name implements Source.
func (k *kubeletPod) Name() string { return k.name }

// Role implements Source.
func (k *kubeletPod) Role() string { return k.role }

// Sample implements Source.
func (k *kubeletPod) Sample(now time.Time) (Sample, bool, error) {
	metrics, _, err := fetchExposition(k.client, k.url)
	if err != nil {
		return Sample{}, false, fmt.Errorf("scrape %s: %w", k.url, err)
	}
	cur, millis, err := podCounters(metrics, k.namespace, k.pod)
	if err != nil {
		return Sample{}, false, fmt.Errorf("scrape %s: %w", k.url, err)
	}
	if k.prevMillis == 0 || millis <= k.prevMillis {
		if k.prevMillis == 0 {
			k.prev, k.prevMillis = cur, millis
		}
		return Sample{}, false, nil
	}
	dt := float64(millis-k.prevMillis) / 1000
	if dt < minSpan.Seconds() {
		return Sample{}, false, nil
	}
	s := rates(k.prev, cur, dt, now)
	k.prev, k.prevMillis = cur, millis
	s.Host, s.Role = k.name, k.role
	return s, true, nil
}

// podCounters reads one pod's CPU seconds and working set out of a
// kubelet's resource metrics, and the time the kubelet read its CPU.
func podCounters(metrics []exposition.Metric, namespace, pod string) (counters, int64, error) {
	c := unmeasured()
	var millis int64
	for _, m := range metrics {
		if m.Labels["namespace"] != namespace || m.Labels["pod"] != pod {
			continue
		}
		switch m.Name {
		case "pod_cpu_usage_seconds_total":
			c.cpuSeconds, millis = m.Value, m.Millis
		case "pod_memory_working_set_bytes":
			c.memory = m.Value
		}
	}
	if millis == 0 {
		return c, 0, errors.New("no pod_cpu_usage_seconds_total with a timestamp for pod " + namespace + "/" + pod)
	}
	return c, millis, nil
}

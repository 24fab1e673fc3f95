package sysmetrics

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
)

// serve answers each request with the next of pages (the last one again
// once they are used up).
func serve(t *testing.T, pages ...[]byte) string {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		page := pages[min(n, len(pages)-1)]
		n++
		mu.Unlock()
		_, _ = w.Write(page)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/metrics"
}

// twoScrapes samples url twice, dt apart by the times passed.
func twoScrapes(t *testing.T, url string, dt time.Duration) Sample {
	t.Helper()
	src := NewNodeExporter("db-1", RoleDatabase, url, nil)
	t0 := time.Unix(1000, 0)
	_, ok, err := src.Sample(t0)
	require.NoError(t, err)
	require.False(t, ok, "the first scrape primes")
	s, ok, err := src.Sample(t0.Add(dt))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "db-1", s.Host)
	require.Equal(t, RoleDatabase, s.Role)
	return s
}

// TestNodeExporterCapturedScrapes reads two pages captured from Debian's
// node_exporter 1.5.0 around a 16 MiB write with fsync. Every expected
// rate is the difference of the pages' figures over the difference of
// their node_time_seconds.
func TestNodeExporterCapturedScrapes(t *testing.T) {
	url := serve(t, fixture(t, "node_exporter-1.5.0-a.txt"), fixture(t, "node_exporter-1.5.0-b.txt"))
	// Our clock says 550 ms; the host's says 548.68 ms, and wins.
	s := twoScrapes(t, url, 550*time.Millisecond)
	// Variables, not constants: Go computes constant expressions exactly,
	// the rates come from float64 readings of the pages.
	t1, t2 := 1.795392057354757e+09, 1.7953920579034407e+09
	dt := t2 - t1
	// Busy seconds (all modes but idle and iowait, both cpus):
	// 18737.72 then 18737.76.
	require.InEpsilon(t, (18737.76-18737.72)/dt*100, s.CPUPercent, 1e-9)
	require.Equal(t, 2.5274793984e+10-2.4778555392e+10, s.MemoryBytes, "MemTotal - MemAvailable of the second page")
	// vda; zram0 is left out.
	require.InEpsilon(t, (2.4426439680e+10-2.4426378240e+10)/dt, s.DiskReadBps, 1e-9)
	require.InEpsilon(t, (2.9766619136e+10-2.9749403648e+10)/dt, s.DiskWriteBps, 1e-9)
	require.InEpsilon(t, 7/dt, s.DiskReadIOPS, 1e-9)
	require.InEpsilon(t, 36/dt, s.DiskWriteIOPS, 1e-9)
	require.InEpsilon(t, (448.26800000000003-448.26)/dt*100, s.DiskBusyPercent, 1e-9)
	// eth0, ifb0, ifb1 and lo.
	require.InEpsilon(t, (9.5105273751e+10-9.5105213069e+10)/dt, s.NetRxBps, 1e-9)
	require.InEpsilon(t, (9.4221984519e+10-9.4221923837e+10)/dt, s.NetTxBps, 1e-9)
}

// TestNodeExporterHandMadeScrapes reads pages without node_time_seconds,
// so the rates span our clock, and with devices that must not count.
func TestNodeExporterHandMadeScrapes(t *testing.T) {
	url := serve(t, fixture(t, "scrape1.txt"), fixture(t, "scrape2.txt"))
	s := twoScrapes(t, url, 2*time.Second)
	// Our clock: 2 s plus half the (tiny) time the server takes to answer.
	const eps = 1e-2
	// busy: cpu0 user +1 system +0.5, cpu1 user +1 = 2.5 s over 2 s.
	require.InEpsilon(t, 125.0, s.CPUPercent, eps)
	require.Equal(t, 6442450944.0, s.MemoryBytes)
	require.InEpsilon(t, 2000.0, s.DiskReadBps, eps, "nvme0n1 alone: not dm-0, a partition or loop0 (whose drop is not negative)")
	require.InEpsilon(t, 4000.0, s.DiskWriteBps, eps)
	require.InEpsilon(t, 2.0, s.DiskReadIOPS, eps)
	require.InEpsilon(t, 10.0, s.DiskWriteIOPS, eps)
	require.InEpsilon(t, 1000.0, s.NetRxBps, eps)
	require.InEpsilon(t, 500.0, s.NetTxBps, eps)
}

func TestNodeExporterMissingFamiliesAreNaN(t *testing.T) {
	url := serve(t, []byte("node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 1\n"),
		[]byte("node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 2\n"))
	s := twoScrapes(t, url, time.Second)
	require.InEpsilon(t, 100.0, s.CPUPercent, 1e-2)
	for _, v := range []float64{s.MemoryBytes, s.DiskReadBps, s.DiskWriteIOPS, s.NetRxBps, s.NetTxBps} {
		require.True(t, math.IsNaN(v), "a collector the exporter does not run is unknown, not zero")
	}
}

func TestNodeExporterErrorsNameTheURL(t *testing.T) {
	notFound := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notFound.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + ln.Addr().String() + "/metrics"
	require.NoError(t, ln.Close())
	for name, tc := range map[string]struct{ url, err string }{
		"HTTP error":        {notFound.URL + "/metrics", "404"},
		"refused":           {closed, "refused"},
		"not an exposition": {serve(t, []byte("<html><body>Grafana</body></html>\n")), "line 1"},
		"not node_exporter": {serve(t, []byte("up 1\nhttp_requests_total{code=\"200\"} 5\n")), "none of node_exporter's"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := NewNodeExporter("db", RoleDatabase, tc.url, nil).Sample(time.Now())
			require.ErrorContains(t, err, tc.url)
			require.ErrorContains(t, err, tc.err)
		})
	}
}

func TestHostClock(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for name, tc := range map[string]struct {
		host1, host2 float64
		local        time.Duration
		want         float64
	}{
		"host clock wins":         {host1: 100, host2: 101.2, local: time.Second, want: 1.2},
		"stepped back: ours":      {host1: 100, host2: 99, local: time.Second, want: 1},
		"stepped forward: ours":   {host1: 100, host2: 130, local: time.Second, want: 1},
		"unknown in one: ours":    {host1: 0, host2: 101.2, local: time.Second, want: 1},
		"too short by host clock": {host1: 100, host2: 100.15, local: 250 * time.Millisecond, want: 0},
	} {
		t.Run(name, func(t *testing.T) {
			var r rater
			_, ok := r.next(counters{cpuSeconds: 0, hostClock: tc.host1}, t0)
			require.False(t, ok)
			s, ok := r.next(counters{cpuSeconds: 1, hostClock: tc.host2}, t0.Add(tc.local))
			if tc.want == 0 {
				require.False(t, ok)
				return
			}
			require.True(t, ok)
			require.InDelta(t, 100/tc.want, s.CPUPercent, 1e-9)
		})
	}
}

// nodeExporterBinary finds Debian's prometheus-node-exporter, or skips;
// under CI=true it fails instead, since a skipped suite in CI hides a
// broken install step.
func nodeExporterBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("DBARENA_NODE_EXPORTER")
	if bin == "" {
		bin, _ = exec.LookPath("prometheus-node-exporter")
	}
	if bin == "" {
		testenv.Missing(t, "prometheus-node-exporter is not installed (apt-get install prometheus-node-exporter, or set DBARENA_NODE_EXPORTER)")
	}
	return bin
}

// startNodeExporter runs node_exporter on a free port of 127.0.0.1 until
// the test ends, and returns its metrics URL once it answers.
func startNodeExporter(t *testing.T, bin string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	// systemd is off (no bus here); the empty device-exclude keeps lo.
	cmd := exec.Command(bin, "--web.listen-address=127.0.0.1:"+strconv.Itoa(port), "--no-collector.systemd",
		"--collector.netdev.device-exclude=^$")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	require.Eventually(t, func() bool {
		r, err := http.Get(url)
		if err != nil {
			return false
		}
		_ = r.Body.Close()
		return r.StatusCode == http.StatusOK
	}, 15*time.Second, 50*time.Millisecond, "node_exporter answers on %s", url)
	return url
}

// TestNodeExporterForReal scrapes Debian's prometheus-node-exporter on
// this machine, and checks it against NewMachine, which reads the same
// kernel counters.
func TestNodeExporterForReal(t *testing.T) {
	url := startNodeExporter(t, nodeExporterBinary(t))
	src := NewNodeExporter("node", RoleDatabase, url, nil)
	local := NewMachine("local")
	start := time.Now()
	_, ok, err := src.Sample(start)
	require.NoError(t, err)
	require.False(t, ok)
	_, _, err = local.Sample(time.Now())
	require.NoError(t, err)

	loopback(t, 8<<20)
	time.Sleep(time.Until(start.Add(time.Second)))
	s, ok, err := src.Sample(time.Now())
	require.NoError(t, err)
	require.True(t, ok)
	m, ok, err := local.Sample(time.Now())
	require.NoError(t, err)
	require.True(t, ok)
	t.Logf("node_exporter: %+v", s)
	t.Logf("machine:       %+v", m)

	require.GreaterOrEqual(t, s.CPUPercent, 0.0)
	require.LessOrEqual(t, s.CPUPercent, 100*float64(onlineCPUs(t))*1.05)
	require.Positive(t, s.MemoryBytes)
	require.InDelta(t, m.MemoryBytes, s.MemoryBytes, 256<<20, "the same /proc/meminfo, a moment apart")
	for _, v := range []float64{s.DiskReadBps, s.DiskWriteBps, s.DiskReadIOPS, s.DiskWriteIOPS, s.NetRxBps, s.NetTxBps} {
		require.False(t, math.IsNaN(v))
		require.GreaterOrEqual(t, v, 0.0)
	}
	// The rate spans about a second (the host's clock); the 8 MiB went
	// over lo, received once and sent once.
	require.GreaterOrEqual(t, s.NetRxBps*1.5, float64(8<<20), "the loopback transfer shows up")
	require.GreaterOrEqual(t, s.NetTxBps*1.5, float64(8<<20))
}

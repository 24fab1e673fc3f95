package sysmetrics

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/exposition"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func TestParseStat(t *testing.T) {
	// pid_stat.txt is a real stat line of a copy of sleep named
	// "x) (y) z", with the CPU times set to known values.
	st, err := parseStat(fixture(t, "pid_stat.txt"))
	require.NoError(t, err)
	require.Equal(t, procStat{ppid: 17875, start: 3905755, own: 3.0, children: 0.1}, st)

	for name, line := range map[string]string{
		"no parentheses": "1234 sleep S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 100",
		"short":          "1234 (sleep) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0",
		"bad ppid":       "1234 (sleep) S x 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 100",
		"bad utime":      "1234 (sleep) S 1 1 1 0 -1 0 0 0 0 0 1.5 1 0 0 20 0 1 0 100",
		"bad starttime":  "1234 (sleep) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 -1",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parseStat([]byte(line))
			require.Error(t, err)
		})
	}
}

func TestParseIOAndStatm(t *testing.T) {
	r, w, err := parseIO(fixture(t, "pid_io.txt"))
	require.NoError(t, err)
	require.Equal(t, 4096.0, r, "read_bytes, not rchar")
	require.Equal(t, 33554432.0, w, "write_bytes, not wchar")
	_, _, err = parseIO([]byte("rchar: 1\nwchar: 2\n"))
	require.ErrorContains(t, err, "no read_bytes")
	_, _, err = parseIO([]byte("read_bytes: x\nwrite_bytes: 1\n"))
	require.ErrorContains(t, err, "read_bytes")

	pages, err := parseStatm([]byte("730 428 401 5 0 89 0\n"))
	require.NoError(t, err)
	require.Equal(t, 428.0, pages, "the second field, resident")
	_, err = parseStatm([]byte("730\n"))
	require.Error(t, err)
}

func TestParseCPUStat(t *testing.T) {
	busy, cores, err := parseCPUStat(fixture(t, "proc_stat.txt"))
	require.NoError(t, err)
	// user 1321061 + nice 13914 + system 390756 + irq 0 + softirq 79143
	// + steal 69508 ticks; idle and iowait left out; guest is in user.
	require.InDelta(t, 18743.82, busy, 1e-9)
	// Each core likewise, its steal apart too.
	require.Len(t, cores, 2)
	require.InDelta(t, (660000+7000+195000+39000+34000)/100.0, cores[0].busy, 1e-9)
	require.InDelta(t, 340.0, cores[0].steal, 1e-9)
	require.InDelta(t, 355.08, cores[1].steal, 1e-9)
	_, _, err = parseCPUStat([]byte("intr 1 2 3\n"))
	require.Error(t, err)
	_, _, err = parseCPUStat([]byte("cpu  1 2 3 4 5 6 7 8\ncpu0 1 x 3 4 5 6 7 8\n"))
	require.ErrorContains(t, err, "cpu0 field 2")
}

func TestParseMeminfo(t *testing.T) {
	used, err := parseMeminfo(fixture(t, "meminfo.txt"))
	require.NoError(t, err)
	require.Equal(t, float64((24682416-24144032)*1024), used)
	_, err = parseMeminfo([]byte("MemTotal: 100 kB\nMemFree: 50 kB\n"))
	require.ErrorContains(t, err, "MemAvailable")
}

func TestParseDiskstats(t *testing.T) {
	b := fixture(t, "diskstats.txt")
	d, err := parseDiskstats(b, countedDisk)
	require.NoError(t, err)
	// sda, nvme0n1, vda and mmcblk0 only: not their partitions, nor
	// loop0, dm-0, md0 or zram0.
	require.Equal(t, float64(80000+6000+47909010+40)*512, d.readBytes)
	require.Equal(t, float64(160000+8000+58139768+48)*512, d.writeBytes)
	require.Equal(t, float64(1000+300+1181753+5), d.readOps)
	require.Equal(t, float64(2000+400+1561974+6), d.writeOps)
	require.Equal(t, map[string]float64{"sda": 1.5, "nvme0n1": 0.2, "vda": 449.12, "mmcblk0": 0}, d.busy)

	d, err = parseDiskstats(b, func(name string) bool { return name == "sda1" })
	require.NoError(t, err)
	require.Equal(t, 79000.0*512, d.readBytes, "the keep function decides")

	_, err = parseDiskstats([]byte("8 0 sda 1 2\n"), countedDisk)
	require.ErrorContains(t, err, "line 1")
	_, err = parseDiskstats([]byte("8 0 sda 1 0 x 0 1 0 8 0 0 0 0\n"), countedDisk)
	require.ErrorContains(t, err, "sda")
	d, err = parseDiskstats([]byte("8 0 sda 1 0 8 0 1 0 8 0 0\n"), countedDisk)
	require.NoError(t, err)
	require.Empty(t, d.busy, "a line without io_ticks: busy unknown")
}

func TestParseNetDev(t *testing.T) {
	links, err := parseNetDevLinks(fixture(t, "net_dev.txt"))
	require.NoError(t, err)
	// lo counts: local databases talk over it. eth0's counter touches
	// the colon.
	require.Equal(t, map[string]linkCounters{
		"lo":   {rx: 94218151443, tx: 94218151443},
		"eth0": {rx: 888000000, tx: 3900000},
		"ifb0": {},
	}, links)
	_, err = parseNetDevLinks([]byte("  eth0: 1 2 3\n"))
	require.ErrorContains(t, err, "line 1")
	_, err = parseNetDevLinks([]byte("  eth0: x 0 0 0 0 0 0 0 1 0\n"))
	require.ErrorContains(t, err, "eth0")
}

// TestBusiestLink: the link of known capacity with the largest share of
// it wins, whatever carries more bytes; links of unknown capacity
// (loopback) never do.
func TestBusiestLink(t *testing.T) {
	prev := map[string]linkCounters{
		"lo":    {rx: 0, tx: 0},
		"eth0":  {rx: 0, tx: 0, capacity: 125e6},
		"veth1": {rx: 0, tx: 0, capacity: 1e6},
	}
	cur := map[string]linkCounters{
		"lo":    {rx: 5e9, tx: 5e9},
		"eth0":  {rx: 50e6, tx: 10e6, capacity: 125e6},
		"veth1": {rx: 0.1e6, tx: 0.95e6, capacity: 1e6},
	}
	name, bps, capacity := busiestLink(prev, cur, 1)
	require.Equal(t, "veth1", name)
	require.Equal(t, 0.95e6, bps, "the busier direction")
	require.Equal(t, 1e6, capacity)
	name, bps, _ = busiestLink(map[string]linkCounters{"lo": {}}, map[string]linkCounters{"lo": {rx: 1e9}}, 1)
	require.Empty(t, name)
	require.True(t, math.IsNaN(bps))
}

// TestLinkCapacities: a shaped rate below the speed wins; above it, the
// speed does; an interface with neither has none.
func TestLinkCapacities(t *testing.T) {
	sys := t.TempDir()
	for name, speed := range map[string]string{"eth0": "1000\n", "eth1": "1000\n", "veth0": "-1\n"} {
		require.NoError(t, os.MkdirAll(filepath.Join(sys, "class", "net", name), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(sys, "class", "net", name, "speed"), []byte(speed), 0o644))
	}
	links := map[string]linkCounters{"eth0": {}, "eth1": {}, "veth0": {}, "veth1": {}, "lo": {}}
	withCapacities(links, sys, map[string]float64{"eth1": 1e6, "eth0": 1e9, "veth1": 2e6})
	require.Equal(t, 125e6, links["eth0"].capacity, "1000 Mbit/s, below its shaped rate")
	require.Equal(t, 1e6, links["eth1"].capacity, "shaped below its speed")
	require.Zero(t, links["veth0"].capacity, "speed -1: unknown")
	require.Equal(t, 2e6, links["veth1"].capacity, "shaped, no speed")
	require.Zero(t, links["lo"].capacity)
}

func TestCountedDisk(t *testing.T) {
	for name, want := range map[string]bool{
		"sda": true, "sdab": true, "vda": true, "xvdf": true, "hdc": true, "nvme0n1": true, "nvme12n3": true,
		"mmcblk0": true, "nbd0": true, "rbd0": true,
		"sda1": false, "sdab12": false, "vda1": false, "xvdf1": false, "hdc3": false, "nvme0n1p1": false,
		"mmcblk0p2": false, "loop0": false, "ram1": false, "zram0": false, "sr0": false, "fd0": false,
		"dm-0": false, "md127": false,
	} {
		require.Equal(t, want, countedDisk(name), name)
	}
}

func TestParseExposition(t *testing.T) {
	ms, err := exposition.Parse(strings.NewReader(string(fixture(t, "scrape1.txt"))))
	require.NoError(t, err)
	last := ms[len(ms)-1]
	require.Equal(t, "node_uname_info", last.Name)
	require.Equal(t, `#1 SMP "quoted" \ slash`, last.Labels["version"])
	require.Equal(t, "db-1", last.Labels["nodename"])

	// A real node_exporter 1.5.0 page: HELP texts with escapes,
	// histograms, summaries, +Inf and NaN.
	ms, err = exposition.Parse(strings.NewReader(string(fixture(t, "node_exporter-1.5.0-a.txt"))))
	require.NoError(t, err)
	require.Greater(t, len(ms), 400)

	for name, tc := range map[string]struct{ text, err string }{
		"unterminated labels": {"ok 1\nbad{a=\"x\" 2\n", "line 2"},
		"no value":            {"lonely\n", "line 1"},
		"bad value":           {"m{a=\"b\"} one\n", "value"},
		"unquoted label":      {"m{a=b} 1\n", "bad label"},
		"html":                {"<html><body>Not here</body></html>\n", "line 1"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := exposition.Parse(strings.NewReader(tc.text))
			require.ErrorContains(t, err, tc.err)
		})
	}
}

// TestBusiest: disk utilisation is the busiest disk's, not a sum that
// two half-busy disks would push to a full one.
func TestBusiest(t *testing.T) {
	require.InDelta(t, 50.0, busiest(map[string]float64{"a": 1, "b": 2}, map[string]float64{"a": 1.5, "b": 2.2, "new": 9}, 1), 1e-9)
	require.True(t, math.IsNaN(busiest(nil, map[string]float64{"a": 1}, 1)), "no disk in both readings")
}

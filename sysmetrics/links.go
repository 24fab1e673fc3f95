package sysmetrics

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vishvananda/netlink"
)

// linkCounters are one network interface's cumulative bytes and its
// capacity in bytes per second (0: unknown).
type linkCounters struct {
	rx, tx, capacity float64
}

// parseNetDevLinks reads each interface's received and sent bytes from
// /proc/net/dev. A wide counter may touch the colon after the name
// ("eth0:12345"), so lines are split at the colon, not at spaces.
func parseNetDevLinks(b []byte) (map[string]linkCounters, error) {
	out := map[string]linkCounters{}
	for i, line := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue // the two header lines
		}
		f := strings.Fields(rest)
		if len(f) < 9 {
			return nil, fmt.Errorf("line %d: short line %q", i+1, line)
		}
		r, err1 := strconv.ParseFloat(f[0], 64)
		t, err2 := strconv.ParseFloat(f[8], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("line %d (%s): bad counters %q", i+1, strings.TrimSpace(name), line)
		}
		out[strings.TrimSpace(name)] = linkCounters{rx: r, tx: t}
	}
	return out, nil
}

// linkSpeed is an interface's speed from sysfs in bytes per second, 0
// when the interface reports none: loopback, veth and many virtual NICs
// answer EINVAL or -1.
func linkSpeed(sysRoot, name string) float64 {
	b, err := os.ReadFile(filepath.Join(sysRoot, "class", "net", name, "speed"))
	if err != nil {
		return 0
	}
	mbit, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil || mbit <= 0 {
		return 0
	}
	return mbit * 1e6 / 8
}

// shapedRates returns the rate, in bytes per second, of the token bucket
// filter (tbf) that is the root qdisc of an interface, by interface
// name: the link's capacity as `tc qdisc add dev X root tbf rate R`
// shaped it. Other qdiscs set no single rate for the whole link and are
// left out.
func shapedRates() (map[string]float64, error) {
	qs, err := netlink.QdiscList(nil)
	if err != nil {
		return nil, fmt.Errorf("qdiscs: %w", err)
	}
	out := map[string]float64{}
	for _, q := range qs {
		t, ok := q.(*netlink.Tbf)
		if !ok || t.Attrs().Parent != netlink.HANDLE_ROOT || t.Rate == 0 {
			continue
		}
		l, err := netlink.LinkByIndex(t.Attrs().LinkIndex)
		if err != nil {
			continue // gone since the listing
		}
		out[l.Attrs().Name] = float64(t.Rate)
	}
	return out, nil
}

// withCapacities sets each link's capacity: the lower of its speed and
// its shaped rate, where either is known.
func withCapacities(links map[string]linkCounters, sysRoot string, shaped map[string]float64) {
	for name, l := range links {
		c := linkSpeed(sysRoot, name)
		if r := shaped[name]; r > 0 && (c == 0 || r < c) {
			c = r
		}
		l.capacity = c
		links[name] = l
	}
}

// busiestLink is the link of known capacity that carried the largest
// share of it between two readings dt seconds apart, in its busier
// direction: its name, bytes per second and capacity ("" when no link
// has a known capacity).
func busiestLink(prev, cur map[string]linkCounters, dt float64) (name string, bps, capacity float64) {
	best := -1.0
	for n, c := range cur {
		p, ok := prev[n]
		if !ok || c.capacity <= 0 {
			continue
		}
		rate := math.Max(math.Max(c.rx-p.rx, 0), math.Max(c.tx-p.tx, 0)) / dt
		if u := rate / c.capacity; u > best || (u == best && n < name) {
			best, name, bps, capacity = u, n, rate, c.capacity
		}
	}
	if name == "" {
		return "", math.NaN(), math.NaN()
	}
	return name, bps, capacity
}

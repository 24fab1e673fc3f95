package drivertest_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivers"
)

// BenchmarkReadMetrics measures what sampling a database's own metrics
// costs the server: the CPU its whole process tree spent per reading,
// less what it spends idle over as long, and that cost at the sampler's
// one reading per second as a share of one core. The server is found by
// the port it listens on, so it must run on this machine.
func BenchmarkReadMetrics(b *testing.B) {
	for _, d := range drivers.All() {
		tg := targets[d.Name]
		if tg.metrics == nil {
			continue
		}
		b.Run(d.Name, func(b *testing.B) {
			addr := serverAddr(b, tg)
			pid, err := listener(portOf(addr))
			if err != nil {
				b.Skipf("no server process found for %s: %v", addr, err)
			}
			ctx := context.Background()
			db, err := d.Open(ctx, driver.Params{Props: tg.props(addr), Workers: 1})
			require.NoError(b, err)
			defer db.Close()
			if sm, ok := db.(driver.SchemaManager); ok {
				require.NoError(b, sm.CreateSchema(ctx, driver.Schema{Table: "metrics_probe", Fields: []string{"field0"}}))
			}
			mr := db.(driver.MetricsReader)
			_, _ = mr.ReadMetrics(ctx) // first-use set-up
			idleStart := treeCPU(pid)
			b.ResetTimer()
			start := time.Now()
			for b.Loop() {
				_, err := mr.ReadMetrics(ctx)
				require.NoError(b, err)
			}
			busy, took := treeCPU(pid)-idleStart, time.Since(start)
			b.StopTimer()
			// The same time idle: the server's own background work.
			before := treeCPU(pid)
			time.Sleep(took)
			idle := treeCPU(pid) - before
			perRead := max(busy-idle, 0) / time.Duration(b.N)
			b.ReportMetric(float64(perRead.Microseconds()), "server-µs/read")
			b.ReportMetric(100*perRead.Seconds(), "%core@1/s")
		})
	}
}

var portPattern = regexp.MustCompile(`:(\d+)`)

// portOf is the port of a test server's address in any of the forms the
// variables hold (host:port, URLs, MySQL's DSN).
func portOf(addr string) int {
	m := portPattern.FindStringSubmatch(addr)
	if m == nil {
		return 0
	}
	p, _ := strconv.Atoi(m[1])
	return p
}

// listener finds the process that listens on port: the socket's inode
// in /proc/net/tcp*, then the process holding it.
func listener(port int) (int, error) {
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		file, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(file)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // LISTEN
				continue
			}
			_, hexPort, _ := strings.Cut(fields[1], ":")
			if p, err := strconv.ParseInt(hexPort, 16, 32); err == nil && int(p) == port {
				inodes["socket:["+fields[9]+"]"] = true
			}
		}
		file.Close()
	}
	if len(inodes) == 0 {
		return 0, fmt.Errorf("nothing listens on port %d", port)
	}
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && inodes[l] {
			return strconv.Atoi(strings.Split(fd, "/")[2])
		}
	}
	return 0, fmt.Errorf("no process holds the socket of port %d", port)
}

// treeCPU is the user and system CPU of pid and its descendants
// (PostgreSQL serves each connection from a child process).
func treeCPU(pid int) time.Duration {
	parent := map[int]int{}
	ticks := map[int]int64{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 13 {
			continue
		}
		p, _ := strconv.Atoi(strings.Split(path, "/")[2])
		parent[p], _ = strconv.Atoi(f[1])
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		ticks[p] = u + st
	}
	var total int64
	for p, t := range ticks {
		for q := p; q > 1; q = parent[q] {
			if q == pid {
				total += t
				break
			}
		}
	}
	// USER_HZ is 100 on Linux.
	return time.Duration(total) * 10 * time.Millisecond
}

package reference

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"net"
	"os/exec"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/workload"
)

// redisBenchmark runs redis-benchmark's HGETALL on the loaded hashes.
// Its __rand_int__ placeholder is a 12-digit zero-padded number, so it
// reads YCSB's keys only when they are ordered and padded to 12 digits
// (insertorder=ordered, zeropadding=12): hashed keys cannot be rebuilt
// by the tool.
type redisBenchmark struct{}

func (redisBenchmark) Name() string { return "redis-benchmark" }

// redisBenchmarkDigits is how many digits redis-benchmark pads
// __rand_int__ to.
const redisBenchmarkDigits = 12

func (r redisBenchmark) Run(ctx context.Context, req Request) (*Result, error) {
	c := req.Workload
	if c.InsertOrder != workload.InsertOrdered || c.ZeroPadding != redisBenchmarkDigits || c.InsertStart != 0 {
		return nil, notApplicable("redis-benchmark reads keys user000000000000 to user<N-1> only: set insertorder=ordered, zeropadding=12 and insertstart=0 for a reference")
	}
	if !c.ReadAllFields {
		return nil, notApplicable("readallfields=false: redis-benchmark is matched on HGETALL of whole records")
	}
	cfg, err := req.Endpoint(req.Props, req.Threads)
	if err != nil {
		return nil, err
	}
	if cfg.Cluster {
		return nil, notApplicable("redis-benchmark is matched against a single Redis server, not a cluster")
	}
	if cfg.TLS {
		return nil, notApplicable("redis-benchmark is not matched over TLS here")
	}
	bin, err := find("DBARENA_REDIS_BENCHMARK", "redis-benchmark")
	if err != nil {
		return nil, err
	}
	host, port, err := net.SplitHostPort(cfg.Addrs[0])
	if err != nil {
		return nil, fmt.Errorf("redis address %q: %w", cfg.Addrs[0], err)
	}
	// redis-benchmark is told a count, not a duration: ask for what
	// dbarena's rate would do in the trial's time, so both run about as
	// long.
	n := int64(math.Max(float64(req.Threads)*1000, req.Rate*req.Duration.Seconds()))
	args := []string{"-h", host, "-p", port, "-c", strconv.Itoa(req.Threads), "-n", strconv.FormatInt(n, 10),
		"-r", strconv.FormatInt(c.EffectiveInsertCount(), 10), "--csv"}
	if cfg.DB != 0 {
		args = append(args, "--dbnum", strconv.Itoa(cfg.DB))
	}
	shown := append([]string(nil), args...)
	switch {
	case cfg.Password != "":
		// redis-benchmark takes a password only on its command line (it
		// ignores REDISCLI_AUTH), where every local user reads it in ps
		// and /proc; a one-time user made for it would be theirs too,
		// while it runs and after a kill -9 of dbarena. No secret goes
		// there: the reference is not run.
		return nil, notApplicable("redis-benchmark takes a password only on its command line (-a), where every local user can read it (ps, /proc/PID/cmdline), as they could a one-time user's made for it: dbarena hands it no secret; the reference runs against a Redis without a password")
	case cfg.Username != "":
		args = append(args, "--user", cfg.Username)
		shown = append(shown, "--user", cfg.Username)
	}
	cmdArgs := []string{"HGETALL", "user__rand_int__"}
	out, err := output(exec.CommandContext(ctx, bin, append(args, cmdArgs...)...))
	if err != nil {
		return nil, err
	}
	res, err := parseRedisBenchmark(out)
	if err != nil {
		return nil, err
	}
	res.Tool = "redis-benchmark"
	res.Command = strings.Join(append(append([]string{"redis-benchmark"}, shown...), cmdArgs...), " ")
	res.Notes = append(res.Notes, distributionNote(c)...)
	return res, nil
}

// parseRedisBenchmark reads redis-benchmark's --csv output: a header row
// ("test","rps","avg_latency_ms",...) and one row per command.
func parseRedisBenchmark(out []byte) (*Result, error) {
	rows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil || len(rows) < 2 {
		return nil, fmt.Errorf("redis-benchmark --csv printed no result row (%v): %.300s", err, out)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	ri, ok := col["rps"]
	if !ok {
		return nil, fmt.Errorf("redis-benchmark --csv has no rps column: %q", rows[0])
	}
	row := rows[1]
	res := &Result{}
	if res.Throughput, err = strconv.ParseFloat(row[ri], 64); err != nil {
		return nil, fmt.Errorf("redis-benchmark rps %q: %w", row[ri], err)
	}
	if li, ok := col["avg_latency_ms"]; ok && li < len(row) {
		if ms, err := strconv.ParseFloat(row[li], 64); err == nil {
			res.MeanLatency = ms * 1000
		}
	}
	return res, nil
}

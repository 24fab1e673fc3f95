package reference

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"math"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/redact"
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
	if cfg.Password != "" {
		// redis-benchmark takes a password only on its command line,
		// where every local user reads it in ps (it ignores
		// REDISCLI_AUTH): it gets a user of its own instead, with a
		// one-time password, reading only, deleted after it.
		user, pass, drop, err := temporaryReader(ctx, cfg)
		if err != nil {
			return nil, notApplicable("redis-benchmark takes a password only on its command line, where every local user could read it, and a one-time user for it could not be made: %v", err)
		}
		defer drop()
		args = append(args, "--user", user, "-a", pass)
		shown = append(shown, "--user", user, "-a", redact.Mask)
	} else if cfg.Username != "" {
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

// temporaryReader makes a Redis ACL user that may only read hashes
// (and what redis-benchmark asks at its start), with a random password,
// as the endpoint's own user; drop deletes it.
func temporaryReader(ctx context.Context, cfg driver.Endpoint) (user, pass string, drop func(), err error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", nil, err
	}
	user, pass = "dbarena-reference-"+hex.EncodeToString(b[:4]), hex.EncodeToString(b[4:])
	c := goredis.NewClient(&goredis.Options{Addr: cfg.Addrs[0], Username: cfg.Username, Password: cfg.Password, DB: cfg.DB})
	err = c.Do(ctx, "ACL", "SETUSER", user, "reset", "on", ">"+pass, "~*", "+@connection", "+select", "+hgetall", "+config|get").Err()
	if err != nil {
		_ = c.Close()
		return "", "", nil, fmt.Errorf("ACL SETUSER: %w", err)
	}
	return user, pass, func() {
		// A fresh context: the run's may be cancelled by now, and the
		// user must not outlive the reference.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = c.Do(dctx, "ACL", "DELUSER", user).Err() // nothing more to do if the server is gone
		_ = c.Close()
	}, nil
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

package drivertest_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/internal/testkit"
	"github.com/dbarena/dbarena/workload"
)

// rdBenchRecords and rdBenchWorkers follow the comparison: workload C
// over 100k records with 16 clients.
const (
	rdBenchRecords = 100_000
	rdBenchWorkers = 16
	// rdBenchPadding makes YCSB's ordered keys "user" plus 12 digits, the
	// form redis-benchmark gives user__rand_int__, so both clients read
	// the same hashes.
	rdBenchPadding = 12
)

// rdBench is YCSB workload C (read-only, every field) with ordered, padded
// keys drawn uniformly, as redis-benchmark -r draws them, in the
// benchmark's logical database, whose load is kept between runs.
func rdBench(b *testing.B, addr string) drivertest.Bench {
	d := tableDriver(b, "redis")
	return drivertest.Bench{
		Open: d.Open, Prefix: d.Prefix,
		Props: map[string]string{"redis.addr": addr, "redis.db": rdBenchDB},
		Workload: map[string]string{
			"readproportion": "1", "updateproportion": "0", "scanproportion": "0", "insertproportion": "0",
			"requestdistribution": "uniform", "insertorder": "ordered", "zeropadding": strconv.Itoa(rdBenchPadding),
			"readallfields": "true",
		},
		Records: rdBenchRecords, Workers: rdBenchWorkers,
		Loaded: func(ctx context.Context, _ driver.DB) bool {
			return rdBenchDBClient(b, addr).ZCard(ctx, "_indices").Val() == rdBenchRecords
		},
	}
}

func rdBenchDBClient(b *testing.B, addr string) *goredis.Client {
	n, _ := strconv.Atoi(rdBenchDB)
	c := goredis.NewClient(&goredis.Options{Addr: addr, DB: n})
	b.Cleanup(func() { _ = c.Close() })
	return c
}

// BenchmarkRedisWorkloadC compares dbarena's workload C with redis-benchmark
// sending the same command (HGETALL of the loaded hashes, keys drawn
// uniformly) over the same number of connections, with the minimal Go
// client below, and with two Go client libraries alone. Each issues b.N reads; ops/s and client CPU per operation
// are reported. Run it with a fixed count, e.g. -benchtime 200000x.
func BenchmarkRedisWorkloadC(b *testing.B) {
	addr := testenv.Addr(b, rdEnv)
	bn := rdBench(b, addr)
	db := bn.OpenLoaded(b)

	b.Run("client=dbarena", func(b *testing.B) { bn.Run(b, db) })

	b.Run("client=go-minimal", func(b *testing.B) {
		cpu := testkit.ProcessCPU()
		b.ResetTimer()
		start := time.Now()
		rdMinimalClient(b, addr, b.N)
		wall := time.Since(start)
		b.StopTimer()
		testkit.ReportCPU(b, cpu, wall, int64(b.N/rdBenchWorkers*rdBenchWorkers))
	})

	// The two maintained Go clients alone, with no runner: the choice of
	// the driver's library was made on these (issue 18). go-redis with a
	// connection of its own per worker, as the driver used it before;
	// rueidis as the driver configures it, its workers' commands
	// pipelined onto 16 shared connections (2^PipelineMultiplex), as many
	// as redis-benchmark opens.
	b.Run("client=go-redis", func(b *testing.B) {
		c := rdBenchDBClient(b, addr)
		conns := make([]*goredis.Conn, rdBenchWorkers)
		for i := range conns {
			conns[i] = c.Conn()
		}
		rdLibraryClient(b, func(ctx context.Context, w int, key string) error {
			return conns[w].HGetAll(ctx, key).Err()
		})
	})
	b.Run("client=rueidis", func(b *testing.B) {
		n, _ := strconv.Atoi(rdBenchDB)
		c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, SelectDB: n, ForceSingleClient: true,
			DisableCache: true, DisableRetry: true, AlwaysRESP2: true, ClientSetInfo: rueidis.DisableClientSetInfo,
			PipelineMultiplex: 4})
		require.NoError(b, err)
		b.Cleanup(c.Close)
		rdLibraryClient(b, func(ctx context.Context, _ int, key string) error {
			return c.Do(ctx, c.B().Hgetall().Key(key).Build()).Error()
		})
	})

	b.Run("client=redis-benchmark", func(b *testing.B) {
		bin := os.Getenv("DBARENA_REDIS_BENCHMARK") // set by scripts/servers
		if bin == "" {
			var err error
			if bin, err = exec.LookPath("redis-benchmark"); err != nil {
				b.Skipf("redis-benchmark not found (%v): set DBARENA_REDIS_BENCHMARK", err)
			}
		}
		host, port := rdSplitAddr(b, addr)
		cmd := exec.Command(bin, "-h", host, "-p", port, "--dbnum", rdBenchDB, "-c", strconv.Itoa(rdBenchWorkers),
			"-n", strconv.Itoa(b.N), "-r", strconv.Itoa(rdBenchRecords), "-q", "HGETALL", "user__rand_int__")
		drivertest.RunTool(b, cmd, b.N)
	})
}

// rdLibraryClient runs b.N reads of uniformly drawn keys over
// rdBenchWorkers goroutines through get, and reports client CPU per read.
func rdLibraryClient(b *testing.B, get func(ctx context.Context, worker int, key string) error) {
	b.Helper()
	drivertest.Alone(b, rdBenchWorkers, func(ctx context.Context, w int, rng *rand.Rand) error {
		return get(ctx, w, workload.KeyName(rng.Int64N(rdBenchRecords), false, rdBenchPadding))
	})
}

// rdMinimalClient is the floor of any Go client: 16
// goroutines, each with its own connection, writing HGETALL by hand and
// skipping the reply, with no library, no runner and no measurement. What
// dbarena spends above it is the driver and the harness; what it spends
// below redis-benchmark is Go's goroutine-per-connection I/O.
func rdMinimalClient(b *testing.B, addr string, ops int) {
	b.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, rdBenchWorkers)
	for w := 0; w < rdBenchWorkers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			errs <- rdMinimalWorker(addr, w, ops/rdBenchWorkers)
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(b, err)
	}
}

func rdMinimalWorker(addr string, w, ops int) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	bw, br := bufio.NewWriter(c), bufio.NewReaderSize(c, 32<<10)
	fmt.Fprintf(bw, "*2\r\n$6\r\nSELECT\r\n$%d\r\n%s\r\n", len(rdBenchDB), rdBenchDB)
	if err := bw.Flush(); err != nil {
		return err
	}
	if _, err := br.ReadSlice('\n'); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(w), 1))
	var req []byte
	for i := 0; i < ops; i++ {
		key := workload.KeyName(rng.Int64N(rdBenchRecords), false, rdBenchPadding)
		req = fmt.Appendf(req[:0], "*2\r\n$7\r\nHGETALL\r\n$%d\r\n%s\r\n", len(key), key)
		if _, err := bw.Write(req); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		n, _ := strconv.Atoi(string(line[1 : len(line)-2]))
		for j := 0; j < n; j++ {
			if line, err = br.ReadSlice('\n'); err != nil {
				return err
			}
			l, _ := strconv.Atoi(string(line[1 : len(line)-2]))
			if _, err := br.Discard(l + 2); err != nil {
				return err
			}
		}
	}
	return nil
}

func rdSplitAddr(b *testing.B, addr string) (string, string) {
	b.Helper()
	host, port, err := net.SplitHostPort(addr)
	require.NoError(b, err)
	return host, port
}

// rdEnv holds the test server's address.
const rdEnv = "DBARENA_TEST_REDIS"

// rdBenchDB is the logical database the benchmark loads, apart from the
// conformance suite's (1 and 4) and driver/redis's tests' (2 and 6).
const rdBenchDB = "3"

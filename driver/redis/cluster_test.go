package redis_test

import (
	"os"
	"testing"

	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/driver/redis"
)

// envCluster holds the seed nodes of a Redis Cluster (host:port,...). It
// is optional: scripts/test starts a single node only, so the cluster
// suite is skipped, even under CI, when the variable is unset.
const envCluster = "DBARENA_TEST_REDIS_CLUSTER"

func TestConformanceCluster(t *testing.T) {
	addrs := os.Getenv(envCluster)
	if addrs == "" {
		t.Skipf("%s is not set: start a Redis Cluster (see docs/drivers/redis.md) to run this suite", envCluster)
	}
	drivertest.Run(t, drivertest.Options{
		Open: redis.Open, Prefix: redis.Prefix,
		Props: map[string]string{"redis.addr": addrs, "redis.cluster": "true"},
	})
}

func TestConformanceClusterFlushDB(t *testing.T) {
	addrs := os.Getenv(envCluster)
	if addrs == "" {
		t.Skipf("%s is not set", envCluster)
	}
	drivertest.Run(t, drivertest.Options{
		Open: redis.Open, Prefix: redis.Prefix,
		Props:   map[string]string{"redis.addr": addrs, "redis.cluster": "true", "redis.drop": "flushdb"},
		Records: 300,
	})
}

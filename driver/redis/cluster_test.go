package redis_test

import (
	"testing"

	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/driver/redis"
	"github.com/dbarena/dbarena/internal/testenv"
)

// envCluster holds the seed nodes of a Redis Cluster (host:port,...);
// scripts/servers starts a three-node cluster and sets it.
const envCluster = "DBARENA_TEST_REDIS_CLUSTER"

func TestConformanceCluster(t *testing.T) {
	addrs := testenv.Addr(t, envCluster)
	drivertest.Run(t, drivertest.Options{
		Open: redis.Open, Prefix: redis.Prefix,
		Props: map[string]string{"redis.addr": addrs, "redis.cluster": "true"},
	})
}

func TestConformanceClusterFlushDB(t *testing.T) {
	addrs := testenv.Addr(t, envCluster)
	drivertest.Run(t, drivertest.Options{
		Open: redis.Open, Prefix: redis.Prefix,
		Props:   map[string]string{"redis.addr": addrs, "redis.cluster": "true", "redis.drop": "flushdb"},
		Records: 300,
	})
}

package driver

// Endpoint is the server a driver's properties point at, in the terms a
// database's own command-line tools take: package reference runs such a
// tool (pgbench, redis-benchmark) against the server a trial measured,
// reading the properties through the driver that owns them, not with a
// parser of its own.
type Endpoint struct {
	// Dialect is the product the properties select ("postgres",
	// "cockroachdb"); "" for a driver of one product.
	Dialect string
	// URL is the connection URL the product's tools accept, with its
	// credentials ("" when they take an address).
	URL string
	// Addrs are the servers' host:port.
	Addrs []string
	// Username and Password authenticate, when the URL does not.
	Username, Password string
	// DB is the numbered database to select (Redis).
	DB int
	// Cluster says the properties name a cluster rather than a server;
	// TLS that connections are encrypted.
	Cluster, TLS bool
	// ReadAllSQL is the driver's statement reading every field of the
	// record whose key is $1 in table (nil for a driver without SQL).
	ReadAllSQL func(table string) string
}

// EndpointFunc reads a driver's properties into its Endpoint; workers
// is the connection count the tool will use. Drivers whose database
// ships a reference tool provide one in the driver table.
type EndpointFunc func(props map[string]string, workers int) (Endpoint, error)

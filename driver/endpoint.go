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
// ships a reference tool provide one in the driver table, and so do
// those whose servers an existing deployment finds on this machine by
// their address (to sample them as the database, not as other
// processes).
type EndpointFunc func(props map[string]string, workers int) (Endpoint, error)

// Reach is where a deployment's servers listen and how its clients log
// in, in terms of no driver: a deployment provider knows it, and the
// driver of the database makes its own properties of it (an Addresser).
// Providers and loaders never name a driver's property.
type Reach struct {
	// Addrs are the servers' host:port: one per node, or one name that
	// stands for every node (a Kubernetes Service).
	Addrs []string
	// Nodes is how many nodes serve, at least len(Addrs): a driver that
	// sets its tables' replication replicates them three times from
	// three nodes on.
	Nodes int
	// User, Password and Database are the login: the account, its
	// password ("" none), and the database (keyspace, namespace) the
	// server made at its first start.
	User, Password, Database string
	// SamePort says every address listens on the same port, so that a
	// driver that takes host names and one port (CQL) may split them.
	SamePort bool
	// Private says the addresses are not the ones the servers advertise
	// to each other (a port-forward, external addresses of VMs): a
	// client must keep to them and not discover the other nodes.
	Private bool
}

// Replicas is how many copies a driver that sets its tables'
// replication asks for: three from three nodes on, else one.
func (r Reach) Replicas() int {
	if max(r.Nodes, len(r.Addrs)) >= 3 {
		return 3
	}
	return 1
}

// Prop is one driver property.
type Prop struct{ Key, Value string }

// Addresser makes a driver's properties of a Reach, in a fixed order,
// so that what a provider renders from them is the same bytes each
// time. Drivers of a database provide one in the driver table.
type Addresser func(Reach) []Prop

// PropMap is props as a map.
func PropMap(props []Prop) map[string]string {
	m := make(map[string]string, len(props))
	for _, p := range props {
		m[p.Key] = p.Value
	}
	return m
}

// URLUser is a URL's user part, with the password when there is one.
func URLUser(user, password string) string {
	if password == "" {
		return user
	}
	return user + ":" + password
}

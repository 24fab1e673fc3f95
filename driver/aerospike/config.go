package aerospike

import (
	"errors"
	"fmt"
	"time"

	as "github.com/aerospike/aerospike-client-go/v8"

	"github.com/dbarena/dbarena/driver"
)

// Prefix is the property prefix of this driver.
const Prefix = "aerospike"

// Defaults, from YCSB's binding where it has one (host localhost, port
// 3000, namespace ycsb, timeout 10000 ms).
const (
	DefaultHost      = "localhost"
	DefaultPort      = 3000
	DefaultNamespace = "ycsb"
)

// Aerospike's name limits (server 5 and later): longer names are refused.
const (
	maxBinName       = 15
	maxSetName       = 63
	maxNamespaceName = 31
)

// Config is the driver's typed configuration, read once from its
// properties.
type Config struct {
	// Hosts are the seed nodes, host:port; the client discovers the rest
	// of the cluster from them.
	Hosts     []string
	Namespace string
	// Set is the set every table maps to; empty means the table name.
	Set      string
	User     string
	Password string
	// Timeout is the total time of one command, retries included.
	Timeout time.Duration
	// ConnectTimeout bounds the first contact with the cluster (and the
	// login when a user is given).
	ConnectTimeout time.Duration
	// Pool is the largest number of connections to each node.
	Pool int
	// Replica chooses the node a read goes to.
	Replica as.ReplicaPolicy
	// ReadModeAP is the read consistency of AP namespaces (one or all
	// replicas); ReadModeSC that of strong-consistency namespaces.
	ReadModeAP as.ReadModeAP
	ReadModeSC as.ReadModeSC
	// CommitLevel says whether a write waits for every replica or only the
	// master (AP namespaces; SC namespaces always commit to all).
	CommitLevel as.CommitLevel
	// SendKey stores the user key with the record, not only its digest.
	SendKey bool
	// DurableDelete leaves a tombstone on delete; strong-consistency
	// namespaces require it unless configured to allow expunges.
	DurableDelete bool
}

// ycsbAliases lists YCSB's binding's property names (prefix "as.").
func ycsbAliases() []driver.Alias {
	return []driver.Alias{
		{Theirs: "as.host", Ours: "host"}, {Theirs: "as.port", Ours: "port"}, {Theirs: "as.namespace", Ours: "namespace"},
		{Theirs: "as.user", Ours: "user"}, {Theirs: "as.password", Ours: "password"}, {Theirs: "as.timeout", Ours: "timeout"},
		{Theirs: Prefix + ".readmodecp", Ours: "readmodesc"},
	}
}

// ParseConfig reads the driver's properties. workers sizes the connection
// pool by default. Every error names the property at fault.
func ParseConfig(props map[string]string, workers int) (Config, error) {
	p, err := driver.NewPropsAliased(Prefix, props, ycsbAliases())
	if err != nil {
		return Config{}, err
	}
	c := Config{
		Namespace: p.String("namespace", DefaultNamespace),
		Set:       p.String("set", ""),
		User:      p.String("user", ""),
		Password:  p.String("password", ""),
	}
	var errs []error
	add := func(e error) {
		if e != nil {
			errs = append(errs, e)
		}
	}
	port, e := p.Int("port", DefaultPort, 1)
	add(e)
	if e == nil && port > 65535 {
		add(fmt.Errorf("%s=%d: want a TCP port (1-65535)", p.Key("port"), port))
	}
	c.Hosts, e = driver.HostList(p.Key("host"), p.String("host", DefaultHost), port)
	add(e)
	add(c.validateNames(p))
	if (c.User == "") != (c.Password == "") {
		add(fmt.Errorf("%s and %s: give both or neither", p.Key("user"), p.Key("password")))
	}
	c.Timeout, e = p.Duration("timeout", 10*time.Second)
	add(e)
	c.ConnectTimeout, e = p.Duration("connect.timeout", 5*time.Second)
	add(e)
	if e == nil && c.ConnectTimeout == 0 {
		add(fmt.Errorf("%s=0: want a positive duration", p.Key("connect.timeout")))
	}
	c.Pool, e = p.Int("pool", max(workers, 1), 1)
	add(e)
	add(c.parsePolicies(p))
	c.SendKey, e = p.Bool("sendkey", true)
	add(e)
	c.DurableDelete, e = p.Bool("durabledelete", false)
	add(e)
	add(p.Unknown(properties()...))
	return c, p.GivenAs(errors.Join(errs...))
}

// properties are the keys ParseConfig reads under the driver's prefix,
// in any configuration (some only when others are set): any other
// property under the prefix is refused as unknown (driver.Props.Unknown),
// naming the nearest.
func properties() []string {
	return []string{"commitlevel", "connect.timeout", "durabledelete", "host", "namespace", "password", "pool", "port", "readmodeap", "readmodesc", "replica", "sendkey", "set", "timeout", "user"}
}

// validateNames checks the namespace and set against Aerospike's limits.
func (c *Config) validateNames(p driver.Props) error {
	var errs []error
	if c.Namespace == "" || len(c.Namespace) > maxNamespaceName {
		errs = append(errs, fmt.Errorf("%s=%q: want a namespace name of 1 to %d bytes", p.Key("namespace"), c.Namespace, maxNamespaceName))
	}
	if len(c.Set) > maxSetName {
		errs = append(errs, fmt.Errorf("%s=%q: Aerospike set names are at most %d bytes", p.Key("set"), c.Set, maxSetName))
	}
	return errors.Join(errs...)
}

// parsePolicies reads the replica, read mode and commit level choices.
func (c *Config) parsePolicies(p driver.Props) error {
	var errs []error
	replica, err := p.Enum("replica", "sequence", "master", "sequence", "any", "master_proles", "random")
	errs = append(errs, err)
	switch replica {
	case "master":
		c.Replica = as.MASTER
	case "any", "master_proles":
		// The C client's "any": reads go round-robin to the master and
		// the replicas of the key's partition.
		c.Replica = as.MASTER_PROLES
	case "random":
		c.Replica = as.RANDOM
	default:
		c.Replica = as.SEQUENCE
	}
	ap, err := p.Enum("readmodeap", "one", "one", "all")
	errs = append(errs, err)
	c.ReadModeAP = as.ReadModeAPOne
	if ap == "all" {
		c.ReadModeAP = as.ReadModeAPAll
	}
	sc, err := p.Enum("readmodesc", "session", "session", "linearize", "allow_replica", "allow_unavailable")
	errs = append(errs, err)
	switch sc {
	case "linearize":
		c.ReadModeSC = as.ReadModeSCLinearize
	case "allow_replica":
		c.ReadModeSC = as.ReadModeSCAllowReplica
	case "allow_unavailable":
		c.ReadModeSC = as.ReadModeSCAllowUnavailable
	default:
		c.ReadModeSC = as.ReadModeSCSession
	}
	commit, err := p.Enum("commitlevel", "all", "all", "master")
	errs = append(errs, err)
	c.CommitLevel = as.COMMIT_ALL
	if commit == "master" {
		c.CommitLevel = as.COMMIT_MASTER
	}
	return errors.Join(errs...)
}

// policies are the client policies of every operation, built once at Open
// and shared read-only by all sessions.
type policies struct {
	read       *as.BasePolicy
	insert     *as.WritePolicy
	update     *as.WritePolicy
	delete     *as.WritePolicy
	batch      *as.BatchPolicy
	batchWrite *as.BatchWritePolicy
	info       *as.InfoPolicy
}

// policies builds the operation policies from the configuration.
func (c *Config) policies() policies {
	base := func(bp *as.BasePolicy) {
		bp.TotalTimeout = c.Timeout
		// The socket timeout must not exceed the total one, or the client
		// uses the total for both; keep one attempt within the budget.
		if bp.SocketTimeout > c.Timeout && c.Timeout > 0 {
			bp.SocketTimeout = c.Timeout
		}
		bp.ReplicaPolicy = c.Replica
		bp.ReadModeAP = c.ReadModeAP
		bp.ReadModeSC = c.ReadModeSC
		bp.SendKey = c.SendKey
	}
	write := func(action as.RecordExistsAction) *as.WritePolicy {
		wp := as.NewWritePolicy(0, 0)
		base(&wp.BasePolicy)
		wp.RecordExistsAction = action
		wp.CommitLevel = c.CommitLevel
		wp.DurableDelete = c.DurableDelete
		return wp
	}
	read := as.NewPolicy()
	base(read)
	batch := as.NewBatchPolicy()
	base(&batch.BasePolicy)
	// The batch carries create-only writes: a retry after a timeout could
	// find its own first attempt's records and report false conflicts, so
	// batches are not retried, like single writes.
	batch.MaxRetries = 0
	bw := as.NewBatchWritePolicy()
	bw.RecordExistsAction = as.CREATE_ONLY
	bw.CommitLevel = c.CommitLevel
	bw.SendKey = c.SendKey
	info := as.NewInfoPolicy()
	info.Timeout = c.ConnectTimeout
	return policies{
		read: read,
		// CREATE_ONLY makes an existing key an error (KEY_EXISTS), as
		// YCSB's binding inserts.
		insert: write(as.CREATE_ONLY),
		// UPDATE_ONLY changes the given bins of an existing record and
		// fails on a missing one. YCSB's binding sends REPLACE_ONLY,
		// which drops the bins it does not write.
		update:     write(as.UPDATE_ONLY),
		delete:     write(as.UPDATE),
		batch:      batch,
		batchWrite: bw,
		info:       info,
	}
}

// clientPolicy is the cluster connection policy.
func (c *Config) clientPolicy() *as.ClientPolicy {
	cp := as.NewClientPolicy()
	cp.Timeout = c.ConnectTimeout
	cp.LoginTimeout = c.ConnectTimeout
	cp.ConnectionQueueSize = c.Pool
	cp.User = c.User
	cp.Password = c.Password
	cp.FailIfNotConnected = true
	return cp
}

// setName is the set a table's records live in.
func (c *Config) setName(table string) string {
	if c.Set != "" {
		return c.Set
	}
	return table
}

// checkBinName reports a field name Aerospike cannot store as a bin name.
func checkBinName(name string) error {
	if len(name) > maxBinName || name == "" {
		return driver.Errorf(driver.ClassBadRequest,
			"field name %q does not fit an Aerospike bin name (1 to %d bytes): use shorter field names (fieldnameprefix)", name, maxBinName)
	}
	return nil
}

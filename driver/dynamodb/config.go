package dynamodb

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/properties/core"
)

// Prefix is the property prefix of this driver.
const Prefix = "dynamodb"

// DefaultPrimaryKey is the key attribute name used when dynamodb.primarykey
// is not given. YCSB's binding has no default (its dynamodb.primaryKey is
// mandatory), so any name is a choice; this one is the key column name of
// YCSB's JDBC binding, which the postgres driver uses too.
const DefaultPrimaryKey = "YCSB_KEY"

// Config is the driver's typed configuration, read once from its
// properties.
type Config struct {
	// Endpoint overrides the AWS endpoint (DynamoDB Local, ScyllaDB
	// Alternator); empty means AWS DynamoDB in Region.
	Endpoint string
	Region   string
	// AccessKey and SecretKey are static credentials; empty means the SDK's
	// default chain, or dummy credentials when Endpoint is set.
	AccessKey string
	SecretKey string
	// PrimaryKey is the name of the hash key attribute holding YCSB's key.
	PrimaryKey string
	// ConsistentReads makes GetItem and Scan strongly consistent.
	ConsistentReads bool
	// BillingMode, RCU and WCU are used when the load creates the table.
	BillingMode types.BillingMode
	RCU, WCU    int64
	// MaxRetries is the number of retries after a failed attempt, by the
	// SDK's retryer for every call and by InsertBatch for unprocessed
	// items. 0 shows every throttled request as an error.
	MaxRetries int
	// MaxBackoff bounds the SDK's exponential backoff between retries.
	MaxBackoff     time.Duration
	ConnectTimeout time.Duration
	// Timeout bounds one HTTP attempt (0: no bound).
	Timeout time.Duration
	// Pool is the number of idle connections kept to the endpoint.
	Pool int
	// ConditionalWrites makes insert fail on an existing key and update and
	// delete fail on a missing one, with condition expressions.
	ConditionalWrites bool
	// InclusiveScan reads the start key with GetItem before the Scan, as
	// YCSB's binding does, because ExclusiveStartKey skips it.
	InclusiveScan bool
	// Table is the core table property, used for the reachability check at
	// Open.
	Table string
}

// ycsbAliases lists the names accepted so that a YCSB property file works
// unchanged. Properties are case-sensitive, like YCSB's.
func ycsbAliases() []driver.Alias {
	return []driver.Alias{
		{Theirs: Prefix + ".primaryKey", Ours: "primarykey"},
		{Theirs: Prefix + ".consistentReads", Ours: "consistentreads"},
		{Theirs: Prefix + ".connectMax", Ours: "pool"},
		{Theirs: Prefix + ".inclusiveScan", Ours: "inclusivescan"},
		{Theirs: Prefix + ".awsAccessKey", Ours: "accesskey"},
		{Theirs: Prefix + ".awsSecretKey", Ours: "secretkey"},
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
		Endpoint:   p.String("endpoint", ""),
		Region:     p.String("region", "us-east-1"),
		AccessKey:  p.String("accesskey", ""),
		SecretKey:  p.String("secretkey", ""),
		PrimaryKey: p.String("primarykey", DefaultPrimaryKey),
		Table:      p.Core(core.Table, "usertable"),
	}
	var errs []error
	add := func(e error) {
		if e != nil {
			errs = append(errs, e)
		}
	}
	add(c.validateStrings(p))
	add(c.readCredentialsFile(p))
	var e error
	c.ConsistentReads, e = p.Bool("consistentreads", false)
	add(e)
	bm, e := p.Enum("billingmode", string(types.BillingModePayPerRequest),
		string(types.BillingModePayPerRequest), string(types.BillingModeProvisioned))
	add(e)
	c.BillingMode = types.BillingMode(bm)
	add(c.parseCapacity(p))
	c.MaxRetries, e = p.Int("maxretries", 2, 0)
	add(e)
	c.MaxBackoff, e = p.Duration("maxbackoff", 20*time.Second)
	add(e)
	c.ConnectTimeout, e = p.Duration("connect.timeout", 5*time.Second)
	add(e)
	if e == nil && c.ConnectTimeout == 0 {
		add(fmt.Errorf("%s=0: want a positive duration", p.Key("connect.timeout")))
	}
	c.Timeout, e = p.Duration("timeout", 10*time.Second)
	add(e)
	c.Pool, e = p.Int("pool", max(workers, 1), 1)
	add(e)
	c.ConditionalWrites, e = p.Bool("conditionalwrites", true)
	add(e)
	c.InclusiveScan, e = p.Bool("inclusivescan", true)
	add(e)
	if t := p.String("primaryKeyType", ""); t != "" && !strings.EqualFold(t, "HASH") {
		add(fmt.Errorf("%s=%q: only HASH tables (one key attribute) are supported", p.Key("primaryKeyType"), t))
	}
	add(p.Unknown(properties()...))
	return c, errors.Join(errs...)
}

// properties are the keys ParseConfig reads under the driver's prefix,
// in any configuration (some only when others are set): any other
// property under the prefix is refused as unknown (driver.Props.Unknown),
// naming the nearest.
func properties() []string {
	return []string{"accesskey", "awsCredentialsFile", "billingmode", "conditionalwrites", "connect.timeout", "consistentreads", "endpoint", "inclusivescan", "maxbackoff", "maxretries", "pool", "primaryKeyType", "primarykey", "rcu", "region", "secretkey", "timeout", "wcu"}
}

// validateStrings checks the endpoint, region, key name and credentials.
func (c *Config) validateStrings(p driver.Props) error {
	var errs []error
	if c.Endpoint != "" {
		u, err := url.Parse(c.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("%s=%q: want a URL such as http://127.0.0.1:8000", p.Key("endpoint"), c.Endpoint))
		}
	}
	if c.Region == "" {
		errs = append(errs, fmt.Errorf("%s is empty: want a region such as us-east-1", p.Key("region")))
	}
	if c.PrimaryKey == "" {
		errs = append(errs, fmt.Errorf("%s is empty: want the name of the table's hash key attribute", p.Key("primarykey")))
	}
	if (c.AccessKey == "") != (c.SecretKey == "") {
		errs = append(errs, fmt.Errorf("%s and %s: give both or neither", p.Key("accesskey"), p.Key("secretkey")))
	}
	return errors.Join(errs...)
}

// parseCapacity reads rcu and wcu, which only a provisioned table uses:
// giving them with on-demand billing is an error rather than silently
// ignored, since the user meant to cap the table.
func (c *Config) parseCapacity(p driver.Props) error {
	var errs []error
	rcu, err := p.Int("rcu", 10, 1)
	errs = append(errs, err)
	wcu, err := p.Int("wcu", 10, 1)
	errs = append(errs, err)
	c.RCU, c.WCU = int64(rcu), int64(wcu)
	if c.BillingMode != types.BillingModeProvisioned {
		for _, k := range []string{"rcu", "wcu"} {
			if p.Has(k) {
				errs = append(errs, fmt.Errorf("%s is only used with %s=PROVISIONED", p.Key(k), p.Key("billingmode")))
			}
		}
	}
	return errors.Join(errs...)
}

// readCredentialsFile reads YCSB's dynamodb.awsCredentialsFile, a Java
// properties file with accessKey and secretKey, when it is given.
func (c *Config) readCredentialsFile(p driver.Props) error {
	path := p.String("awsCredentialsFile", "")
	if path == "" {
		return nil
	}
	key := p.Key("awsCredentialsFile")
	if c.AccessKey != "" {
		return fmt.Errorf("%s and %s: both give credentials; keep one", key, p.Key("accesskey"))
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			k, v, _ = strings.Cut(line, ":")
		}
		switch strings.TrimSpace(k) {
		case "accessKey":
			c.AccessKey = strings.TrimSpace(v)
		case "secretKey":
			c.SecretKey = strings.TrimSpace(v)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if c.AccessKey == "" || c.SecretKey == "" {
		return fmt.Errorf("%s=%q: want accessKey=... and secretKey=... lines", key, path)
	}
	return nil
}

// Address is the endpoint requests go to, for messages.
func (c *Config) Address() string {
	if c.Endpoint != "" {
		return c.Endpoint
	}
	return "https://dynamodb." + c.Region + ".amazonaws.com"
}

// Endpoint is the server dynamodb.endpoint names (DynamoDB Local,
// ScyllaDB Alternator; none for AWS's): an existing deployment finds it
// on this machine by its address.
func Endpoint(props map[string]string, workers int) (driver.Endpoint, error) {
	c, err := ParseConfig(props, workers)
	if err != nil || c.Endpoint == "" {
		return driver.Endpoint{}, err
	}
	u, err := url.Parse(c.Endpoint)
	if err != nil || u.Host == "" {
		return driver.Endpoint{}, fmt.Errorf("dynamodb.endpoint %q: want a URL such as http://127.0.0.1:8000", c.Endpoint)
	}
	host := u.Host
	if u.Port() == "" {
		port := "443"
		if u.Scheme == "http" {
			port = "80"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	return driver.Endpoint{URL: c.Endpoint, Addrs: []string{host}}, nil
}

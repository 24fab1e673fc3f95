package mongodb

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/redact"
	"github.com/dbarena/dbarena/properties/core"
)

// Prefix is the property prefix of this driver.
const Prefix = "mongodb"

// DefaultURL is YCSB's default connection string: database ycsb and
// acknowledged writes (w=1).
const DefaultURL = "mongodb://localhost:27017/ycsb?w=1"

// DefaultDatabase is used when the URL names no database or names "admin",
// as YCSB's binding does.
const DefaultDatabase = "ycsb"

// Config is the driver's typed configuration, read once from its
// properties.
type Config struct {
	// URL is the connection string (mongodb:// or mongodb+srv://).
	URL string
	// Database holds the collections; one collection per YCSB table.
	Database string
	// Hosts are the seed hosts of the URL, for messages.
	Hosts []string
	// WriteConcern is never nil: the property, else the URL's w and
	// journal, else w=1.
	WriteConcern *writeconcern.WriteConcern
	// ReadConcern is nil when neither the property nor the URL sets one:
	// no readConcern is sent and the server's default (local) applies.
	ReadConcern *readconcern.ReadConcern
	// ReadPreference is never nil (primary unless set).
	ReadPreference *readpref.ReadPref
	// Pool is the largest number of connections per server.
	Pool int
	// ConnectTimeout bounds connecting, the ping at Open, and server
	// selection for every operation.
	ConnectTimeout time.Duration
	// Timeout bounds every operation (the driver's client-side operation
	// timeout); 0 leaves operations unbounded, as YCSB does.
	Timeout time.Duration
	// Upsert makes inserts replace-with-upsert, as YCSB's mongodb.upsert.
	Upsert bool
	// Ignored lists properties that YCSB's binding reads and this driver
	// accepts without effect, so that Open can say so once.
	Ignored []string

	client *options.ClientOptions
}

// ycsbAliases lists YCSB's spellings (its OptionsSupport legacy names).
func ycsbAliases() []driver.Alias {
	return []driver.Alias{
		{Theirs: Prefix + ".writeConcern", Ours: "writeconcern"},
		{Theirs: Prefix + ".readPreference", Ours: "readpreference"},
		{Theirs: Prefix + ".maxconnections", Ours: "pool"},
	}
}

// ParseConfig reads the driver's properties. workers sizes the connection
// pool by default. Every error names the property at fault.
func ParseConfig(props map[string]string, workers int) (Config, error) {
	p, err := driver.NewPropsAliased(Prefix, props, ycsbAliases())
	if err != nil {
		return Config{}, err
	}
	c := Config{URL: p.String("url", DefaultURL)}
	if c.URL == "" {
		c.URL = DefaultURL
	}
	if !strings.HasPrefix(c.URL, "mongodb://") && !strings.HasPrefix(c.URL, "mongodb+srv://") {
		return c, fmt.Errorf("%s=%q: want mongodb://host:port/database?options or mongodb+srv://host/database?options", p.Key("url"), redact.URL(c.URL))
	}
	opts := options.Client().ApplyURI(c.URL)
	if err := opts.Validate(); err != nil {
		return c, fmt.Errorf("%s=%q: %w", p.Key("url"), redact.URL(c.URL), err)
	}
	c.client = opts
	c.Hosts = opts.Hosts
	c.Database = p.String("database", urlDatabase(c.URL))
	if c.Database == "" {
		return c, fmt.Errorf("%s is empty: want a database name", p.Key("database"))
	}

	var errs []error
	add := func(e error) {
		if e != nil {
			errs = append(errs, e)
		}
	}
	c.WriteConcern, err = parseWriteConcern(p, opts.WriteConcern)
	add(err)
	c.ReadConcern, err = parseReadConcern(p, opts.ReadConcern)
	add(err)
	c.ReadPreference, err = parseReadPreference(p, opts.ReadPreference)
	add(err)
	defPool := max(workers, 1)
	if opts.MaxPoolSize != nil && *opts.MaxPoolSize > 0 {
		defPool = int(*opts.MaxPoolSize)
	}
	c.Pool, err = p.Int("pool", defPool, 1)
	add(err)
	c.ConnectTimeout, err = p.Duration("connect.timeout", 5*time.Second)
	add(err)
	if err == nil && c.ConnectTimeout == 0 {
		add(fmt.Errorf("%s=0: want a positive duration", p.Key("connect.timeout")))
	}
	c.Timeout, err = p.Duration("timeout", 0)
	add(err)
	c.Upsert, err = p.Bool("upsert", false)
	add(err)
	if c.ReadConcern != nil && c.ReadConcern.Level == "linearizable" && c.ReadPreference.Mode() != readpref.PrimaryMode {
		add(fmt.Errorf("%s=linearizable needs %s=primary (MongoDB serves linearizable reads from the primary only), not %s",
			p.Key("readconcern"), p.Key("readpreference"), c.ReadPreference.Mode()))
	}
	for _, k := range []string{core.BatchSize, "threadsAllowedToBlockForConnectionMultiplier"} {
		if p.Has(k) {
			c.Ignored = append(c.Ignored, p.Key(k))
		}
	}
	add(p.Unknown(properties()...))
	return c, p.GivenAs(errors.Join(errs...))
}

// properties are the keys ParseConfig reads under the driver's prefix,
// in any configuration (some only when others are set): any other
// property under the prefix is refused as unknown (driver.Props.Unknown),
// naming the nearest.
func properties() []string {
	return []string{core.BatchSize, "connect.timeout", "database", "journal", "pool", "readconcern", "readpreference", "threadsAllowedToBlockForConnectionMultiplier", "timeout", "upsert", "url", "writeconcern"}
}

// urlDatabase returns the database named in the URL's path, or
// DefaultDatabase when there is none or it is "admin" (the URL then names
// the authentication database, not the data's), as YCSB decides.
func urlDatabase(raw string) string {
	rest := raw[strings.Index(raw, "://")+3:]
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return DefaultDatabase
	}
	db := rest[i+1:]
	if j := strings.IndexByte(db, '?'); j >= 0 {
		db = db[:j]
	}
	if u, err := url.PathUnescape(db); err == nil {
		db = u
	}
	if db == "" || db == "admin" {
		return DefaultDatabase
	}
	return db
}

// parseWriteConcern reads mongodb.writeconcern and mongodb.journal over the
// URL's w and journal options. The default is w=1, YCSB's default URL, so
// that results do not change with the server's implicit default (majority
// on replica sets since MongoDB 5.0).
func parseWriteConcern(p driver.Props, fromURL *writeconcern.WriteConcern) (*writeconcern.WriteConcern, error) {
	wc := &writeconcern.WriteConcern{W: 1}
	if fromURL != nil {
		*wc = *fromURL
		if wc.W == nil {
			wc.W = 1
		}
	}
	if p.Has("writeconcern") {
		raw := p.String("writeconcern", "")
		w, journal, err := parseW(raw)
		if err != nil {
			return nil, fmt.Errorf("%s=%q: %w", p.Key("writeconcern"), raw, err)
		}
		wc.W = w
		if journal {
			t := true
			wc.Journal = &t
		}
	}
	if p.Has("journal") {
		j, err := p.Bool("journal", false)
		if err != nil {
			return nil, err
		}
		wc.Journal = &j
	}
	if !wc.IsValid() {
		return nil, fmt.Errorf("%s: w=0 (unacknowledged) cannot be journaled; unset %s or raise w", p.Key("writeconcern"), p.Key("journal"))
	}
	return wc, nil
}

// parseW reads a w value: a number of members, "majority", or one of
// YCSB's legacy names. journaled keeps w=1 and asks for the journal.
func parseW(raw string) (w any, journal bool, err error) {
	s := strings.ToLower(strings.TrimSpace(raw))
	if n, err := strconv.Atoi(s); err == nil && n >= 0 {
		return n, false, nil
	}
	switch s {
	case "majority":
		return writeconcern.WCMajority, false, nil
	case "unacknowledged", "errors_ignored":
		return 0, false, nil
	case "acknowledged":
		return 1, false, nil
	case "journaled":
		return 1, true, nil
	case "replica_acknowledged":
		return 2, false, nil
	}
	return nil, false, errors.New("want 0, 1, a number of members, majority, or YCSB's unacknowledged, acknowledged, journaled, replica_acknowledged")
}

// readConcernLevels are the levels MongoDB defines.
func readConcernLevels() []string {
	return []string{"local", "majority", "linearizable", "snapshot", "available"}
}

// parseReadConcern reads mongodb.readconcern over the URL's
// readConcernLevel. nil means none is sent.
func parseReadConcern(p driver.Props, fromURL *readconcern.ReadConcern) (*readconcern.ReadConcern, error) {
	if !p.Has("readconcern") {
		return fromURL, nil
	}
	level, err := p.Enum("readconcern", "", readConcernLevels()...)
	if err != nil {
		return nil, err
	}
	return &readconcern.ReadConcern{Level: level}, nil
}

// parseReadPreference reads mongodb.readpreference over the URL's
// readPreference. MongoDB's names and YCSB's (primary_preferred...) are
// both accepted, in any case.
func parseReadPreference(p driver.Props, fromURL *readpref.ReadPref) (*readpref.ReadPref, error) {
	if !p.Has("readpreference") {
		if fromURL != nil {
			return fromURL, nil
		}
		return readpref.Primary(), nil
	}
	raw := p.String("readpreference", "")
	mode, err := readpref.ModeFromString(strings.ReplaceAll(raw, "_", ""))
	if err != nil {
		return nil, fmt.Errorf("%s=%q: want primary, primaryPreferred, secondary, secondaryPreferred or nearest", p.Key("readpreference"), raw)
	}
	rp, err := readpref.New(mode)
	if err != nil {
		return nil, fmt.Errorf("%s=%q: %w", p.Key("readpreference"), raw, err)
	}
	return rp, nil
}

// wString renders a w value for messages and docs.
func wString(wc *writeconcern.WriteConcern) string {
	s := fmt.Sprintf("w=%v", wc.W)
	if wc.Journal != nil {
		s += fmt.Sprintf(" j=%t", *wc.Journal)
	}
	return s
}

// Endpoint is the seed hosts mongodb.url names: an existing deployment
// finds the servers on this machine by them.
func Endpoint(props map[string]string, workers int) (driver.Endpoint, error) {
	c, err := ParseConfig(props, workers)
	if err != nil {
		return driver.Endpoint{}, err
	}
	return driver.Endpoint{URL: c.URL, Addrs: c.Hosts}, nil
}

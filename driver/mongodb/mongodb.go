// Package mongodb is the dbarena driver for MongoDB and the databases that
// speak its wire protocol (Atlas, Amazon DocumentDB, Azure Cosmos DB for
// MongoDB, FerretDB), on the official Go driver (mongo-driver v2).
//
// Records are laid out as YCSB's mongodb binding lays them out, so that
// data loaded by either tool reads in the other: one collection per YCSB
// table in one database, one document per record with the YCSB key as a
// string _id, and one field per YCSB field holding the value as BSON
// binary (subtype 0, what the Java driver writes for a byte[]).
//
// Documents are built and read as raw BSON, without reflection: a read
// walks the returned document's bytes and copies each value into the
// caller's record.
package mongodb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/auth"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/redact"
)

// appName is sent in the connection handshake so that server logs and
// currentOp show where the load comes from.
const appName = "dbarena"

// DB is an opened MongoDB database: one client with a connection pool
// shared by every session.
type DB struct {
	cfg    Config
	log    *slog.Logger
	client *mongo.Client
	db     *mongo.Database
	addr   string
}

var (
	_ driver.DB            = (*DB)(nil)
	_ driver.SchemaManager = (*DB)(nil)
)

// Open is the driver.Opener. It connects and pings the server within
// mongodb.connect.timeout, so that a wrong address fails here and not in
// the first operation.
func Open(ctx context.Context, p driver.Params) (driver.DB, error) {
	cfg, err := ParseConfig(p.Props, p.Workers)
	if err != nil {
		return nil, driver.BadConfig(err)
	}
	log := p.Log()
	for _, k := range cfg.Ignored {
		log.Warn("property has no effect in dbarena", "property", k,
			"why", "batched loads follow the core batchsize property; the Go driver has no wait-queue multiplier")
	}
	db := &DB{cfg: cfg, log: log, addr: strings.Join(cfg.Hosts, ",")}
	if err := db.connect(ctx); err != nil {
		return nil, err
	}
	log.Debug("connected", "addr", db.addr, "database", cfg.Database, "write_concern", wString(cfg.WriteConcern),
		"read_preference", cfg.ReadPreference.Mode().String(), "pool", cfg.Pool)
	return db, nil
}

// clientOptions applies the typed configuration over the options parsed
// from the URL (a property given explicitly wins over the same option in
// the URL). It is called once, by Open.
func (c *Config) clientOptions() *options.ClientOptions {
	o := c.client
	o.SetAppName(appName)
	o.SetMaxPoolSize(uint64(c.Pool))
	o.SetConnectTimeout(c.ConnectTimeout)
	// Server selection is where an operation waits when no suitable server
	// is up; bounding it by the connect timeout (the driver's default is
	// 30 s) makes a dead server fail operations quickly.
	o.SetServerSelectionTimeout(c.ConnectTimeout)
	o.SetWriteConcern(c.WriteConcern)
	o.SetReadPreference(c.ReadPreference)
	if c.ReadConcern != nil {
		o.SetReadConcern(c.ReadConcern)
	}
	if c.Timeout > 0 {
		o.SetTimeout(c.Timeout)
	}
	return o
}

// connect creates the client and pings the server.
func (db *DB) connect(ctx context.Context) error {
	client, err := mongo.Connect(db.cfg.clientOptions())
	if err != nil {
		return fmt.Errorf("mongodb.url=%q: %w", redact.URL(db.cfg.URL), err)
	}
	pctx, cancel := context.WithTimeout(ctx, db.cfg.ConnectTimeout)
	defer cancel()
	if err := client.Ping(pctx, nil); err != nil {
		// Disconnect waits for a handshake still in flight, up to the
		// connect timeout again: a silent server took twice the time
		// promised. The client is dropped in the background instead.
		go func() {
			dctx, cancel := context.WithTimeout(context.Background(), db.cfg.ConnectTimeout)
			defer cancel()
			_ = client.Disconnect(dctx)
		}()
		return db.connectError(err)
	}
	db.client = client
	db.db = client.Database(db.cfg.Database)
	return nil
}

// connectError turns a failed ping into a message that says what to fix.
func (db *DB) connectError(err error) error {
	if errors.As(err, new(*auth.Error)) {
		return fmt.Errorf("mongodb at %s refused the login in %s (check the user, password and authSource in mongodb.url): %w",
			db.addr, redact.URL(db.cfg.URL), err)
	}
	return driver.Unreachable("mongodb", db.addr, db.cfg.ConnectTimeout, err)
}

// Session implements driver.DB.
func (db *DB) Session(context.Context, int) (driver.Session, error) {
	return newSession(db), nil
}

// Close implements driver.DB.
func (db *DB) Close() error {
	if db.client == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), db.cfg.ConnectTimeout)
	defer cancel()
	if err := db.client.Disconnect(ctx); err != nil {
		return fmt.Errorf("disconnect from mongodb at %s: %w", db.addr, err)
	}
	return nil
}

// Package aerospike is the dbarena driver for Aerospike (Community and
// Enterprise editions, and Aerospike Cloud without TLS), on the official Go
// client (aerospike-client-go v8).
//
// Records are laid out as YCSB's aerospike binding lays them out, so that
// data loaded by either tool reads in the other: one record per YCSB key
// in the configured namespace, in a set named after the YCSB table, with
// one bin per field holding the value as a byte blob. Bin names are at
// most 15 bytes, which YCSB's field0..field9 fit.
//
// Aerospike has no ordered key scan: Scan returns driver.ErrUnsupported,
// as YCSB's binding answers NOT_IMPLEMENTED.
package aerospike

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	as "github.com/aerospike/aerospike-client-go/v8"
	"github.com/aerospike/aerospike-client-go/v8/types"

	"github.com/dbarena/dbarena/driver"
)

// DB is an opened Aerospike cluster: one client, with a connection pool
// per node, shared by every session.
type DB struct {
	cfg    Config
	log    *slog.Logger
	client *as.Client
	pol    policies
	errs   classifier
	addr   string
}

var (
	_ driver.DB            = (*DB)(nil)
	_ driver.SchemaManager = (*DB)(nil)
)

// Open is the driver.Opener. It connects to the seed hosts within
// aerospike.connect.timeout and fills the connection pools, so that a
// wrong address fails here and the first measured operations do not pay
// for connecting.
func Open(ctx context.Context, p driver.Params) (driver.DB, error) {
	cfg, err := ParseConfig(p.Props, p.Workers)
	if err != nil {
		return nil, driver.BadConfig(err)
	}
	log := p.Log()
	db := &DB{cfg: cfg, log: log, pol: cfg.policies(), errs: resultClasses(), addr: strings.Join(cfg.Hosts, ",")}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := db.connect(); err != nil {
		return nil, err
	}
	if n, err := db.client.WarmUp(cfg.Pool); err != nil {
		log.Warn("could not open every pooled connection", "addr", db.addr, "opened", n, "err", err)
	}
	log.Debug("connected", "addr", db.addr, "namespace", cfg.Namespace, "nodes", len(db.client.GetNodes()), "pool", cfg.Pool)
	return db, nil
}

// connect creates the client; the Go client connects to the seeds and
// discovers the cluster before it returns.
func (db *DB) connect() error {
	hosts, err := as.NewHosts(db.cfg.Hosts...)
	if err != nil {
		return fmt.Errorf("aerospike.host: %w", err)
	}
	client, err := as.NewClientWithPolicyAndHost(db.cfg.clientPolicy(), hosts...)
	if err != nil {
		return db.connectError(err)
	}
	db.client = client
	return nil
}

// connectError turns a failed connection into a message that says what to
// fix.
func (db *DB) connectError(err error) error {
	switch {
	case matches(err, types.INVALID_USER, types.INVALID_PASSWORD, types.INVALID_CREDENTIAL, types.NOT_AUTHENTICATED, types.EXPIRED_PASSWORD):
		return fmt.Errorf("aerospike at %s refused the login of user %q (check aerospike.user and aerospike.password): %w", db.addr, db.cfg.User, err)
	case matches(err, types.SECURITY_NOT_ENABLED, types.SECURITY_NOT_SUPPORTED):
		return fmt.Errorf("aerospike at %s has no access control (Community Edition, or security off): unset aerospike.user and aerospike.password: %w", db.addr, err)
	case matches(err, types.CLUSTER_NAME_MISMATCH_ERROR):
		return fmt.Errorf("aerospike at %s: %w", db.addr, err)
	}
	return driver.Unreachable("aerospike", db.addr, db.cfg.ConnectTimeout, err)
}

// Session implements driver.DB.
func (db *DB) Session(context.Context, int) (driver.Session, error) {
	return newSession(db), nil
}

// Close implements driver.DB.
func (db *DB) Close() error {
	if db.client != nil {
		db.client.Close()
	}
	return nil
}

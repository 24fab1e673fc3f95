package aerospike

import (
	"context"
	"fmt"
	"strings"

	as "github.com/aerospike/aerospike-client-go/v8"
	"github.com/aerospike/aerospike-client-go/v8/types"

	"github.com/dbarena/dbarena/driver"
)

// markerKey is the record CreateSchema writes and deletes to create a set.
const markerKey = "dbarena-schema-marker"

// CreateSchema implements driver.SchemaManager. A namespace is server
// configuration, so it is only checked. A set comes into being with its
// first record; CreateSchema writes and deletes one marker record so that
// the set is known to the cluster from then on, and CheckSchema can tell
// a table that was created (even if still empty) from a misspelt one.
// Field names are checked against the bin name limit.
func (db *DB) CreateSchema(ctx context.Context, s driver.Schema) error {
	if err := db.checkNamespace(); err != nil {
		return err
	}
	if err := checkFields(s.Fields); err != nil {
		return err
	}
	set := db.cfg.setName(s.Table)
	if len(set) > maxSetName {
		return fmt.Errorf("table %q: Aerospike set names are at most %d bytes: set a shorter table or aerospike.set", s.Table, maxSetName)
	}
	known, err := db.setKnown(set)
	if err != nil || known {
		return err
	}
	k, aerr := as.NewKey(db.cfg.Namespace, set, markerKey)
	if aerr != nil {
		return fmt.Errorf("create set %s: %w", set, aerr)
	}
	if aerr := db.client.PutBins(db.pol.insert, k, as.NewBin("dbarena", 1)); aerr != nil && !aerr.Matches(types.KEY_EXISTS_ERROR) {
		return fmt.Errorf("create set %s in namespace %s at %s (writing a marker record): %w", set, db.cfg.Namespace, db.addr, db.errs.classify(aerr))
	}
	if _, aerr := db.client.Delete(db.pol.delete, k); aerr != nil {
		return fmt.Errorf("create set %s in namespace %s at %s (deleting the marker record %q): %w", set, db.cfg.Namespace, db.addr, markerKey, db.errs.classify(aerr))
	}
	db.log.Info("created set", "namespace", db.cfg.Namespace, "set", set, "addr", db.addr)
	return nil
}

// DropSchema implements driver.SchemaManager by truncating the set: every
// record written before now is gone on every node. The set name stays
// known to the cluster. A missing set is not an error.
func (db *DB) DropSchema(ctx context.Context, s driver.Schema) error {
	if err := db.checkNamespace(); err != nil {
		return err
	}
	set := db.cfg.setName(s.Table)
	known, err := db.setKnown(set)
	if err != nil || !known {
		return err
	}
	if aerr := db.client.Truncate(db.pol.info, db.cfg.Namespace, set, nil); aerr != nil {
		return fmt.Errorf("truncate set %s in namespace %s at %s: %w", set, db.cfg.Namespace, db.addr, db.errs.classify(aerr))
	}
	return nil
}

// CheckSchema implements driver.SchemaManager: the namespace must exist,
// the set must be known to the cluster (created or loaded), and the field
// names must fit bin names.
func (db *DB) CheckSchema(ctx context.Context, s driver.Schema) error {
	if err := db.checkNamespace(); err != nil {
		return err
	}
	if err := checkFields(s.Fields); err != nil {
		return err
	}
	set := db.cfg.setName(s.Table)
	known, err := db.setKnown(set)
	if err != nil {
		return err
	}
	if !known {
		return fmt.Errorf("set %s does not exist in namespace %s at %s: run `dbarena ycsb load` first (it creates the set), or set the table property or aerospike.set",
			set, db.cfg.Namespace, db.addr)
	}
	return nil
}

// checkFields reports the first field name that is not a valid bin name.
func checkFields(fields []string) error {
	for _, f := range fields {
		if err := checkBinName(f); err != nil {
			return err
		}
	}
	return nil
}

// info sends one info command to every node and returns the answers.
func (db *DB) info(command string) ([]string, error) {
	nodes := db.client.GetNodes()
	if len(nodes) == 0 {
		return nil, driver.Unreachable("aerospike", db.addr, db.cfg.ConnectTimeout, as.ErrClusterIsEmpty)
	}
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		m, err := n.RequestInfo(db.pol.info, command)
		if err != nil {
			return nil, fmt.Errorf("info %q on node %s: %w", command, n, db.errs.classify(err))
		}
		out = append(out, m[command])
	}
	return out, nil
}

// checkNamespace reports a namespace the cluster does not have, with the
// ones it has.
func (db *DB) checkNamespace() error {
	answers, err := db.info("namespaces")
	if err != nil {
		return err
	}
	for _, a := range answers {
		if hasNamespace(a, db.cfg.Namespace) {
			return nil
		}
	}
	have := ""
	if len(answers) > 0 {
		have = answers[0]
	}
	return fmt.Errorf("namespace %q does not exist on the cluster at %s (it has %q): namespaces are server configuration: add a `namespace %s { ... }` stanza to aerospike.conf and restart the nodes, or set aerospike.namespace to one of those",
		db.cfg.Namespace, db.addr, have, db.cfg.Namespace)
}

// hasNamespace reads the answer to "namespaces" ("ns1;ns2").
func hasNamespace(answer, ns string) bool {
	for _, n := range strings.Split(answer, ";") {
		if strings.TrimSpace(n) == ns {
			return true
		}
	}
	return false
}

// setKnown reports whether any node lists the set.
func (db *DB) setKnown(set string) (bool, error) {
	answers, err := db.info("sets/" + db.cfg.Namespace)
	if err != nil {
		return false, err
	}
	for _, a := range answers {
		if hasSet(a, set) {
			return true, nil
		}
	}
	return false, nil
}

// hasSet reads the answer to "sets/<ns>": one entry per set, separated by
// ';', each a ':'-separated list of name=value with the name under "set"
// (older servers: "set_name").
func hasSet(answer, set string) bool {
	for _, entry := range strings.Split(answer, ";") {
		for _, kv := range strings.Split(entry, ":") {
			k, v, ok := strings.Cut(kv, "=")
			if ok && (k == "set" || k == "set_name") && v == set {
				return true
			}
		}
	}
	return false
}

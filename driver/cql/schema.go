package cql

import (
	"context"
	"fmt"
	"slices"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/dbarena/dbarena/driver"
)

// tableText is the CREATE TABLE of YCSB's cassandra-cql binding: the key
// y_id and one varchar column per field. Values are YCSB's printable ASCII
// and travel as raw bytes, so they read back byte for byte; a value that
// is not valid UTF-8 would be refused by the server (use blob columns for
// those: the driver binds raw bytes to blob as well).
func tableText(ks string, s driver.Schema) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s.%s (%s varchar PRIMARY KEY", ks, s.Table, KeyColumn)
	for _, f := range s.Fields {
		fmt.Fprintf(&b, ", %s varchar", f)
	}
	b.WriteString(")")
	return b.String()
}

// checkNames refuses names that would need quoting: unquoted names fold to
// lower case and match YCSB's, quoted ones would not.
func checkNames(s driver.Schema) error {
	if !identifier.MatchString(s.Table) {
		return fmt.Errorf("cql: table name %q is not an unquoted CQL name (a letter, then letters, digits or _)", s.Table)
	}
	for _, f := range s.Fields {
		if !identifier.MatchString(f) {
			return fmt.Errorf("cql: field name %q is not an unquoted CQL name", f)
		}
	}
	return nil
}

// CreateSchema implements driver.SchemaManager: CREATE KEYSPACE IF NOT
// EXISTS with the replication properties, CREATE TABLE IF NOT EXISTS, then
// a wait until every node reports the same schema version, so that the
// first inserts do not reach a node that has not heard of the table.
func (db *DB) CreateSchema(ctx context.Context, s driver.Schema) error {
	if err := checkNames(s); err != nil {
		return err
	}
	ks := db.cfg.Keyspace
	stmt := fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = %s", ks, db.cfg.replication())
	if err := db.session.Query(stmt).ExecContext(ctx); err != nil {
		return fmt.Errorf("cql create keyspace %s: %w", ks, err)
	}
	db.warnReplication(ctx)
	if err := db.session.Query(tableText(ks, s)).ExecContext(ctx); err != nil {
		return fmt.Errorf("cql create table %s.%s: %w", ks, s.Table, err)
	}
	if err := db.session.AwaitSchemaAgreement(ctx); err != nil {
		return fmt.Errorf("cql create %s.%s: nodes do not agree on the schema: %w", ks, s.Table, err)
	}
	return nil
}

// warnReplication logs when an existing keyspace replicates otherwise than
// the properties ask: CREATE KEYSPACE IF NOT EXISTS leaves it as it is, and
// a run meant for RF=3 would silently measure RF=1.
func (db *DB) warnReplication(ctx context.Context) {
	var repl map[string]string
	err := db.session.Query("SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?",
		strings.ToLower(db.cfg.Keyspace)).Consistency(gocql.One).ScanContext(ctx, &repl)
	if err != nil {
		return // YugabyteDB and older servers may not expose it; not worth failing for
	}
	want := fmt.Sprint(db.cfg.Factor)
	class := repl["class"]
	same := strings.HasSuffix(class, db.cfg.Strategy)
	if db.cfg.Strategy == "SimpleStrategy" || len(db.cfg.DCs) == 0 {
		if rf, ok := repl["replication_factor"]; ok && rf != want {
			same = false
		}
	}
	for _, d := range db.cfg.DCs {
		if repl[d.DC] != fmt.Sprint(d.Factor) {
			same = false
		}
	}
	if !same {
		db.log.Warn("cql keyspace exists with other replication; it is left as it is",
			"keyspace", db.cfg.Keyspace, "replication", fmt.Sprint(repl), "wanted", db.cfg.replication())
	}
}

// DropSchema implements driver.SchemaManager: DROP TABLE IF EXISTS. The
// keyspace stays, with any other tables in it.
func (db *DB) DropSchema(ctx context.Context, s driver.Schema) error {
	if err := checkNames(s); err != nil {
		return err
	}
	ok, err := db.keyspaceExists(ctx)
	if err != nil || !ok {
		return err
	}
	stmt := fmt.Sprintf("DROP TABLE IF EXISTS %s.%s", db.cfg.Keyspace, s.Table)
	if err := db.session.Query(stmt).ExecContext(ctx); err != nil {
		return fmt.Errorf("cql drop table %s.%s: %w", db.cfg.Keyspace, s.Table, err)
	}
	if err := db.session.AwaitSchemaAgreement(ctx); err != nil {
		return fmt.Errorf("cql drop %s.%s: nodes do not agree on the schema: %w", db.cfg.Keyspace, s.Table, err)
	}
	return nil
}

func (db *DB) keyspaceExists(ctx context.Context) (bool, error) {
	var name string
	err := db.session.Query("SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?",
		strings.ToLower(db.cfg.Keyspace)).Consistency(gocql.One).ScanContext(ctx, &name)
	if err == gocql.ErrNotFound {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("cql read system_schema.keyspaces: %w", err)
	}
	return true, nil
}

// valueTypes are the column types whose values the driver reads and writes
// as raw bytes.
var valueTypes = []string{"text", "varchar", "ascii", "blob"}

// CheckSchema implements driver.SchemaManager from system_schema: the
// keyspace, the table, its y_id partition key and every field column with
// a text or blob type. Every problem found is named.
func (db *DB) CheckSchema(ctx context.Context, s driver.Schema) error {
	if err := checkNames(s); err != nil {
		return err
	}
	ks := db.cfg.Keyspace
	hosts := strings.Join(db.cfg.Hosts, ",")
	ok, err := db.keyspaceExists(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("cql: keyspace %s does not exist at %s, so table %s.%s is missing: run `dbarena ycsb load` (it creates both) or create them",
			ks, hosts, ks, s.Table)
	}
	iter := db.session.Query("SELECT column_name, kind, type FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?",
		strings.ToLower(ks), strings.ToLower(s.Table)).Consistency(gocql.One).IterContext(ctx)
	cols := map[string][2]string{}
	var name, kind, typ string
	for iter.Scan(&name, &kind, &typ) {
		cols[name] = [2]string{kind, typ}
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("cql read system_schema.columns: %w", err)
	}
	if len(cols) == 0 {
		return fmt.Errorf("cql: table %s.%s does not exist at %s: run `dbarena ycsb load` (it creates it) or create it", ks, s.Table, hosts)
	}
	var problems []string
	if c, ok := cols[KeyColumn]; !ok || c[0] != "partition_key" {
		problems = append(problems, fmt.Sprintf("%s is not its partition key", KeyColumn))
	}
	var missing []string
	for _, f := range s.Fields {
		c, ok := cols[strings.ToLower(f)]
		switch {
		case !ok:
			missing = append(missing, f)
		case !slices.Contains(valueTypes, c[1]):
			problems = append(problems, fmt.Sprintf("column %s is %s, not text or blob", f, c[1]))
		}
	}
	if len(missing) > 0 {
		problems = append(problems, "missing columns "+strings.Join(missing, ", "))
	}
	if len(problems) > 0 {
		return fmt.Errorf("cql: table %s.%s at %s does not have YCSB's shape: %s", ks, s.Table, hosts, strings.Join(problems, "; "))
	}
	return nil
}

package mongodb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/dbarena/dbarena/driver"
)

// codeNamespaceExists is returned by create when the collection exists.
const codeNamespaceExists = 48

// CreateSchema implements driver.SchemaManager: it creates the table's
// collection when missing. The database is created implicitly with its
// first collection. MongoDB needs no fields declared; the collection is
// created explicitly all the same so that CheckSchema can tell an empty
// load from a misspelt table.
func (db *DB) CreateSchema(ctx context.Context, s driver.Schema) error {
	exists, err := db.hasCollection(ctx, s.Table)
	if err != nil {
		return err
	}
	if exists {
		return nil
	}
	err = db.db.CreateCollection(ctx, s.Table)
	var ce mongo.CommandError
	if errors.As(err, &ce) && ce.HasErrorCode(codeNamespaceExists) {
		return nil // created meanwhile by another loader
	}
	if err != nil {
		return fmt.Errorf("create collection %s in database %q at %s: %w", s.Table, db.cfg.Database, db.addr, classify(err))
	}
	db.log.Info("created collection", "database", db.cfg.Database, "collection", s.Table, "addr", db.addr)
	return nil
}

// DropSchema implements driver.SchemaManager: it drops the table's
// collection; a missing one is not an error.
func (db *DB) DropSchema(ctx context.Context, s driver.Schema) error {
	if err := db.db.Collection(s.Table).Drop(ctx); err != nil {
		return fmt.Errorf("drop collection %s in database %q at %s: %w", s.Table, db.cfg.Database, db.addr, classify(err))
	}
	return nil
}

// CheckSchema implements driver.SchemaManager: the collection must exist,
// and a document in it, when there is one, must hold the workload's
// fields, so that a run with another fieldcount or fieldnameprefix than
// the load stops here rather than reading empty records.
func (db *DB) CheckSchema(ctx context.Context, s driver.Schema) error {
	exists, err := db.hasCollection(ctx, s.Table)
	if err != nil {
		return err
	}
	if !exists {
		return fmt.Errorf("collection %s does not exist in database %q at %s: run `dbarena ycsb load` first (it creates the collection), or set the table property or the database in mongodb.url",
			s.Table, db.cfg.Database, db.addr)
	}
	raw, err := db.db.Collection(s.Table).FindOne(ctx, bson.D{}).Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check collection %s in database %q at %s: %w", s.Table, db.cfg.Database, db.addr, classify(err))
	}
	var missing []string
	for _, f := range s.Fields {
		if _, err := raw.LookupErr(f); err != nil {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("collection %s in database %q at %s holds documents without field(s) %s (one has %s): load it again with --drop, or match fieldcount/fieldnameprefix to it",
			s.Table, db.cfg.Database, db.addr, strings.Join(missing, ", "), strings.Join(docKeys(raw), ", "))
	}
	return nil
}

// hasCollection reports whether the database holds the collection.
func (db *DB) hasCollection(ctx context.Context, name string) (bool, error) {
	names, err := db.db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: name}})
	if err != nil {
		return false, fmt.Errorf("list collections of database %q at %s: %w", db.cfg.Database, db.addr, classify(err))
	}
	return slices.Contains(names, name), nil
}

// docKeys lists a document's keys for messages.
func docKeys(raw bson.Raw) []string {
	els, err := raw.Elements()
	if err != nil {
		return nil
	}
	keys := make([]string, 0, len(els))
	for _, e := range els {
		keys = append(keys, e.Key())
	}
	return keys
}

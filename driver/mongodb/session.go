package mongodb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/record"
)

// maxInterned bounds the field names a session keeps for reuse; YCSB
// records have a handful, and a collection of arbitrary documents must
// not grow the map without limit.
const maxInterned = 1024

// session is one worker's handle. The client and its pool are shared; the
// session keeps the collection handle of the table it used last, the
// buffers documents are built in, and the options of the field sets it
// has read, so that steady-state operations build no options and no
// reflection-encoded documents.
type session struct {
	db       *DB
	coll     *mongo.Collection
	collName string

	filter []byte // {_id: key} or {_id: {$gte: key}}
	doc    []byte // the record, or its $set update
	batch  []byte // the documents of one InsertBatch, back to back
	ends   []int
	docs   []any
	models []mongo.WriteModel

	names    map[string]string
	readOpts map[string]*options.FindOneOptionsBuilder
	projs    map[string]bson.Raw
	sortByID bson.Raw
	upsert   *options.ReplaceOptionsBuilder
	unorder  *options.InsertManyOptionsBuilder
	bulk     *options.BulkWriteOptionsBuilder
}

var (
	_ driver.Session       = (*session)(nil)
	_ driver.BatchInserter = (*session)(nil)
)

func newSession(db *DB) *session {
	sortByID, _ := bson.Marshal(bson.D{{Key: "_id", Value: 1}})
	return &session{
		db:       db,
		names:    make(map[string]string),
		readOpts: make(map[string]*options.FindOneOptionsBuilder),
		projs:    make(map[string]bson.Raw),
		sortByID: sortByID,
		upsert:   options.Replace().SetUpsert(true),
		unorder:  options.InsertMany().SetOrdered(false),
		bulk:     options.BulkWrite().SetOrdered(false),
	}
}

// collection returns the handle of a table's collection.
func (s *session) collection(table string) *mongo.Collection {
	if s.coll == nil || s.collName != table {
		s.collName = strings.Clone(table)
		s.coll = s.db.db.Collection(s.collName)
	}
	return s.coll
}

// fieldsKey names a field list for the options cache without allocating
// in the common cases.
func fieldsKey(fields []string) string {
	if len(fields) == 1 {
		return fields[0]
	}
	return strings.Join(fields, ",")
}

// projection returns {f1: 1, ..., _id: 0}, built once per field set.
func (s *session) projection(fields []string) bson.Raw {
	k := fieldsKey(fields)
	if p, ok := s.projs[k]; ok {
		return p
	}
	p := appendProjection(nil, fields)
	s.projs[strings.Clone(k)] = p
	return p
}

// readOptions returns the FindOne options that project fields, built once
// per field set.
func (s *session) readOptions(fields []string) *options.FindOneOptionsBuilder {
	k := fieldsKey(fields)
	if o, ok := s.readOpts[k]; ok {
		return o
	}
	o := options.FindOne().SetProjection(s.projection(fields))
	s.readOpts[strings.Clone(k)] = o
	return o
}

// fieldName returns the name a document key is reported under: the
// caller's own string when it asked for fields, else an interned copy.
func (s *session) fieldName(key []byte, fields []string) string {
	for _, f := range fields {
		if f == string(key) {
			return f
		}
	}
	if n, ok := s.names[string(key)]; ok {
		return n
	}
	n := string(key)
	if len(s.names) < maxInterned {
		s.names[n] = n
	}
	return n
}

// Read implements driver.Session.
func (s *session) Read(ctx context.Context, table, key string, fields []string, dst record.Record) (record.Record, error) {
	dst = dst[:0]
	coll := s.collection(table)
	s.filter = appendKeyFilter(s.filter[:0], key)
	var res *mongo.SingleResult
	if fields == nil {
		res = coll.FindOne(ctx, bson.Raw(s.filter))
	} else {
		res = coll.FindOne(ctx, bson.Raw(s.filter), s.readOptions(fields))
	}
	raw, err := res.Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return dst, driver.ErrNotFound
	}
	if err != nil {
		return dst, opError("read", table, key, err)
	}
	return appendFields(dst, raw, fields, s.fieldName)
}

// Scan implements driver.Session: _id >= startKey in _id order, as YCSB's
// binding queries.
func (s *session) Scan(ctx context.Context, table, startKey string, count int, fields []string, dst []record.Record) ([]record.Record, error) {
	dst = dst[:0]
	if count <= 0 {
		return dst, nil
	}
	coll := s.collection(table)
	s.filter = appendRangeFilter(s.filter[:0], startKey)
	// The batch size is the limit, so the whole scan is one round trip.
	opts := options.Find().SetSort(s.sortByID).SetLimit(int64(count)).SetBatchSize(int32(min(count, math.MaxInt32)))
	if fields != nil {
		opts.SetProjection(s.projection(fields))
	}
	cur, err := coll.Find(ctx, bson.Raw(s.filter), opts)
	if err != nil {
		return dst, opError("scan", table, startKey, err)
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		n := len(dst)
		if n < cap(dst) {
			dst = dst[:n+1]
		} else {
			dst = append(dst, nil)
		}
		if dst[n], err = appendFields(dst[n][:0], cur.Current, fields, s.fieldName); err != nil {
			return dst, opError("scan", table, startKey, err)
		}
	}
	if err := cur.Err(); err != nil {
		return dst, opError("scan", table, startKey, err)
	}
	return dst, nil
}

// Update implements driver.Session with $set of the given fields. A
// missing record is not created (YCSB's binding does not upsert updates).
func (s *session) Update(ctx context.Context, table, key string, values record.Record) error {
	coll := s.collection(table)
	s.filter = appendKeyFilter(s.filter[:0], key)
	s.doc = appendSet(s.doc[:0], values)
	res, err := coll.UpdateOne(ctx, bson.Raw(s.filter), bson.Raw(s.doc))
	if err != nil {
		return opError("update", table, key, err)
	}
	// An unacknowledged write (w=0) reports no counts: nothing to check.
	if res.Acknowledged && res.MatchedCount == 0 {
		return driver.ErrNotFound
	}
	return nil
}

// Insert implements driver.Session: insertOne, which fails on an existing
// _id, or with mongodb.upsert a replaceOne with upsert, which overwrites.
func (s *session) Insert(ctx context.Context, table, key string, values record.Record) error {
	coll := s.collection(table)
	s.doc = appendRecord(s.doc[:0], key, values)
	var err error
	if s.db.cfg.Upsert {
		s.filter = appendKeyFilter(s.filter[:0], key)
		_, err = coll.ReplaceOne(ctx, bson.Raw(s.filter), bson.Raw(s.doc), s.upsert)
	} else {
		_, err = coll.InsertOne(ctx, bson.Raw(s.doc))
	}
	if err != nil {
		return opError("insert", table, key, err)
	}
	return nil
}

// Delete implements driver.Session.
func (s *session) Delete(ctx context.Context, table, key string) error {
	coll := s.collection(table)
	s.filter = appendKeyFilter(s.filter[:0], key)
	res, err := coll.DeleteOne(ctx, bson.Raw(s.filter))
	if err != nil {
		return opError("delete", table, key, err)
	}
	if res.Acknowledged && res.DeletedCount == 0 {
		return driver.ErrNotFound
	}
	return nil
}

// InsertBatch implements driver.BatchInserter with one unordered
// insertMany (a bulk of upserting replaceOne with mongodb.upsert), as
// YCSB's binding sends a batch. Unordered, the server inserts every
// document it can; a duplicate key fails only its own document, and the
// batch then reports CONFLICT.
func (s *session) InsertBatch(ctx context.Context, table string, keys []string, values []record.Record) error {
	if len(keys) == 0 {
		return nil
	}
	coll := s.collection(table)
	// Every document is built into one buffer first and sliced after, as
	// the buffer may move while it grows.
	s.batch, s.ends = s.batch[:0], s.ends[:0]
	for i, k := range keys {
		s.batch = appendRecord(s.batch, k, values[i])
		s.ends = append(s.ends, len(s.batch))
	}
	var err error
	if s.db.cfg.Upsert {
		s.models = s.models[:0]
		start := 0
		for i, end := range s.ends {
			f := appendKeyFilter(nil, keys[i])
			s.models = append(s.models, mongo.NewReplaceOneModel().SetFilter(bson.Raw(f)).
				SetReplacement(bson.Raw(s.batch[start:end])).SetUpsert(true))
			start = end
		}
		_, err = coll.BulkWrite(ctx, s.models, s.bulk)
	} else {
		s.docs = s.docs[:0]
		start := 0
		for _, end := range s.ends {
			s.docs = append(s.docs, bson.Raw(s.batch[start:end]))
			start = end
		}
		_, err = coll.InsertMany(ctx, s.docs, s.unorder)
	}
	if err != nil {
		return &driver.Error{Class: classOf(err),
			Err: fmt.Errorf("insert %d documents (%s..%s) into %s.%s: %w", len(keys), keys[0], keys[len(keys)-1], s.db.cfg.Database, table, err)}
	}
	return nil
}

// Close implements driver.Session. The pool belongs to the DB.
func (s *session) Close() error { return nil }

// opError classifies a failed operation and names it.
func opError(op, table, key string, err error) error {
	return &driver.Error{Class: classOf(err), Err: fmt.Errorf("%s %s/%s: %w", op, table, key, err)}
}

// Package cql is the dbarena driver for databases that speak the Cassandra
// Query Language: Apache Cassandra, ScyllaDB, YugabyteDB YCQL, and managed
// services such as DataStax Astra or Amazon Keyspaces.
//
// # Client
//
// It uses github.com/apache/cassandra-gocql-driver/v2, the gocql driver
// the Apache Cassandra project maintains. ScyllaDB's fork
// (github.com/scylladb/gocql) was not chosen: it keeps the import path
// github.com/gocql/gocql and is used through a replace directive, which
// `go install module@version` refuses, so dbarena could no longer be
// installed that way, and it would pin the project to a fork. The fork's
// gain is shard awareness: it opens a connection per ScyllaDB shard (CPU
// core) and sends each request to the shard owning its token, saving a
// cross-core hop on the server. Against ScyllaDB this driver still routes
// to the right node (token-aware) but not to the right shard; measuring
// that difference is left as a known trade-off.
//
// Requests go to a replica of their key: gocql's TokenAwareHostPolicy over
// a DC-aware round robin (cql.local.dc set) or a plain round robin. Each
// host gets one connection by default, multiplexing every worker's
// requests: more sockets cost client CPU in system calls and wake-ups
// without serving more requests (docs/drivers/cql.md has the figures).
//
// # Hot path
//
// Every worker session keeps one *gocql.Query per operation kind, table and
// field set, built on first use with its statement text; gocql prepares
// each text once per host. An operation copies its key into the query's
// argument slot, points the value slots at the caller's bytes, executes and
// copies result columns straight into the caller's record: no statement
// text, argument slice or boxed value is built per operation. Values are
// bound and read as raw bytes through gocql's Marshaler and Unmarshaler
// interfaces, which is the wire encoding of varchar and blob alike.
//
// # Schema
//
// The table is YCSB's (cassandra-cql binding): keyspace ycsb, table
// usertable, y_id varchar PRIMARY KEY and field0..fieldN varchar, so data
// loaded by YCSB reads here and the other way round. Scans are YCSB's
// `WHERE token(y_id) >= token(?) LIMIT ?`: rows come in token order, not
// key order.
//
// # Example
//
//	dbarena ycsb load cql -P workloads/workloada -p cql.hosts=10.0.0.1,10.0.0.2 \
//	    -p cql.replication.factor=3 -p cql.consistency.write=QUORUM
//	dbarena ycsb run cql -P workloads/workloada -p cql.hosts=10.0.0.1,10.0.0.2 \
//	    -p cql.consistency.read=QUORUM -p cql.consistency.write=QUORUM -threads 64
package cql

package deploy

import (
	"fmt"
	"net"
	"strings"
)

// Login is the account and the database (keyspace, namespace) clients
// of a deployed database use: what the image makes at its first start.
type Login struct{ User, Database string }

// Prop is one driver property.
type Prop struct{ Key, Value string }

// Addressing says how a provider reaches the servers.
type Addressing struct {
	// Password is the password the deployment set ("" = none).
	Password string
	// SplitPort gives a CQL driver the hosts by name and one cql.port
	// rather than host:port each: names that resolve to every node of a
	// cluster (a Kubernetes Service) or VMs that all listen on the port.
	SplitPort bool
}

// Endpoint is the driver properties that reach the database at addrs
// (host:port each; a driver that takes one address takes the first), in
// a fixed order. The property names are the driver's; the login is the
// catalogue's. Several addresses spread the workers over the nodes
// where the driver can (postgres.hosts), and three or more replicate
// CQL tables three times.
func (d Database) Endpoint(addrs []string, a Addressing) []Prop {
	if len(addrs) == 0 {
		return nil
	}
	first, pw := addrs[0], a.Password
	switch d.Driver {
	case "postgres":
		out := []Prop{{"postgres.url", fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", auth(d.Login.User, pw), first, d.Login.Database)}}
		if len(addrs) > 1 {
			// The workers spread over the nodes; a multi-host URL would
			// only fail over.
			out = append(out, Prop{"postgres.hosts", strings.Join(addrs, ",")})
		}
		return out
	case "mysql":
		return []Prop{{"mysql.url", fmt.Sprintf("%s@tcp(%s)/%s", auth(d.Login.User, pw), first, d.Login.Database)}}
	case "redis":
		out := []Prop{{"redis.addr", first}}
		if pw != "" {
			out = append(out, Prop{"redis.password", pw})
		}
		return out
	case "mongodb":
		return []Prop{{"mongodb.url", fmt.Sprintf("mongodb://%s/%s", first, d.Login.Database)}}
	case "cql":
		var out []Prop
		if a.SplitPort {
			var hosts []string
			port := ""
			for _, addr := range addrs {
				h, p, _ := net.SplitHostPort(addr)
				hosts, port = append(hosts, h), p
			}
			out = []Prop{{"cql.hosts", strings.Join(hosts, ",")}, {"cql.port", port}}
		} else {
			out = []Prop{{"cql.hosts", strings.Join(addrs, ",")}}
		}
		if len(addrs) >= 3 {
			out = append(out, Prop{"cql.replication.factor", "3"})
		}
		return out
	case "dynamodb":
		// DynamoDB Local and Alternator take any credentials.
		return []Prop{{"dynamodb.endpoint", "http://" + first}, {"dynamodb.region", "us-east-1"},
			{"dynamodb.accesskey", "dbarena"}, {"dynamodb.secretkey", "dbarena"}}
	case "aerospike":
		return []Prop{{"aerospike.hosts", first}, {"aerospike.namespace", d.Login.Database}}
	}
	return nil
}

// PropMap is props as a map.
func PropMap(props []Prop) map[string]string {
	m := make(map[string]string, len(props))
	for _, p := range props {
		m[p.Key] = p.Value
	}
	return m
}

// auth is a URL's user part, with the password when there is one.
func auth(user, pw string) string {
	if pw == "" {
		return user
	}
	return user + ":" + pw
}

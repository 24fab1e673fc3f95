package cql

import (
	"net"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/driver"
)

// Address implements driver.Addresser: every address a contact point
// (by name with one cql.port when they share it), no discovery of the
// other nodes from private addresses, and tables replicated three
// times from three nodes on.
func Address(r driver.Reach) []driver.Prop {
	if len(r.Addrs) == 0 {
		return nil
	}
	var out []driver.Prop
	if r.SamePort {
		var hosts []string
		port := ""
		for _, addr := range r.Addrs {
			h, p, _ := net.SplitHostPort(addr)
			hosts, port = append(hosts, h), p
		}
		out = []driver.Prop{{Key: Prefix + ".hosts", Value: strings.Join(hosts, ",")}, {Key: Prefix + ".port", Value: port}}
	} else {
		out = []driver.Prop{{Key: Prefix + ".hosts", Value: strings.Join(r.Addrs, ",")}}
	}
	if n := r.Replicas(); n > 1 {
		out = append(out, driver.Prop{Key: Prefix + ".replication.factor", Value: strconv.Itoa(n)})
	}
	if r.Private {
		out = append(out, driver.Prop{Key: Prefix + ".discovery", Value: "false"})
	}
	return out
}

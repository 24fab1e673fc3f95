package aerospike

import "github.com/dbarena/dbarena/driver"

// Address implements driver.Addresser: the first server (the client
// discovers the others) and the namespace.
func Address(r driver.Reach) []driver.Prop {
	if len(r.Addrs) == 0 {
		return nil
	}
	return []driver.Prop{{Key: Prefix + ".host", Value: r.Addrs[0]}, {Key: Prefix + ".namespace", Value: r.Database}}
}

package deploy

import "github.com/dbarena/dbarena/driver"

// Login is the account and the database (keyspace, namespace) clients
// of a deployed database use: what the image makes at its first start.
type Login struct{ User, Database string }

// Reach is where the servers of d at addrs (host:port each, one per
// node) are, with the catalogue's login and the deployment's password
// ("" none), in terms of no driver: a provider gives it to the driver
// table (drivers.Address), which makes the driver's properties of it.
// A provider sets what else it knows (SamePort, Private, Nodes when a
// name stands for several).
func (d Database) Reach(addrs []string, password string) driver.Reach {
	return driver.Reach{Addrs: addrs, Nodes: len(addrs), User: d.Login.User, Password: password, Database: d.Login.Database}
}

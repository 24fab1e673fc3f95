package providers

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/compose"
	"github.com/dbarena/dbarena/deploy/kubernetes"
	"github.com/dbarena/dbarena/deploy/local"
	"github.com/dbarena/dbarena/deploy/terraform"
	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivers"
)

// TestCatalogueIsWhole walks the catalogue: every database's driver is
// registered, and every provider that runs databases of its own runs
// each one, as one node and, where it clusters, as three, unless the
// catalogue says why not; a reason given for a provider that does run
// it is stale and fails too.
func TestCatalogueIsWhole(t *testing.T) {
	vmOptions := map[string]string{"cloud": "gcp", "project": "bench", "operator_cidr": "203.0.113.7/32", "ssh_public_key": "ssh-ed25519 AAAA me"}
	runs := map[string]func(req deploy.Request) error{
		deploy.Compose: func(req deploy.Request) error {
			_, err := compose.Render(req)
			return err
		},
		deploy.Kubernetes: func(req deploy.Request) error {
			_, err := kubernetes.Render(req)
			return err
		},
		deploy.Terraform: func(req deploy.Request) error {
			req.Options = vmOptions
			_, _, err := terraform.Vars(req)
			return err
		},
		deploy.Local: func(req deploy.Request) error {
			if !slices.Contains(local.Databases(), req.Database) {
				return errors.New("no local launcher")
			}
			return nil
		},
	}
	for _, d := range deploy.Databases() {
		t.Run(d.Name, func(t *testing.T) {
			info, err := drivers.Lookup(d.Driver)
			require.NoError(t, err, "the catalogue's driver is registered in driver/drivers")
			for k := range d.DriverProperties {
				require.Regexp(t, "^"+info.Prefix+`\.`, k, "dialect properties are the driver's own")
			}
			for p, why := range d.Unsupported {
				require.Contains(t, runs, p, "Unsupported names a provider that runs databases of its own")
				require.NotEmpty(t, why, "%s: say why", p)
			}
			for p, run := range runs {
				err := run(deploy.Request{Name: "t", Database: d.Name})
				if why, ok := d.Unsupported[p]; ok {
					require.Error(t, err, "%s runs %s: drop the catalogue's reason %q", p, d.Name, why)
					continue
				}
				require.NoError(t, err, "%s cannot run %s, and the catalogue's Unsupported does not say why", p, d.Name)
				if d.Cluster != nil && p != deploy.Local {
					require.NoError(t, run(deploy.Request{Name: "t", Database: d.Name, Nodes: 3}), "%s: %s clusters", p, d.Name)
				}
			}
		})
	}
}

// TestEveryDatabaseIsReachable checks that the driver of every
// catalogue entry makes properties of addresses, that they carry its
// prefix and that its Check accepts them (with the entry's own
// properties), and that a password reaches the properties of the
// drivers that take one in them.
func TestEveryDatabaseIsReachable(t *testing.T) {
	for _, db := range deploy.Databases() {
		info, err := drivers.Lookup(db.Driver)
		require.NoError(t, err, db.Name)
		require.NotNil(t, info.Address, "%s: driver %s has no Address in the driver table", db.Name, db.Driver)
		for _, r := range []driver.Reach{db.Reach([]string{"h1:1000", "h2:1000", "h3:1000"}, ""), db.Reach([]string{"h1:1000"}, "")} {
			for _, same := range []bool{false, true} {
				r.SamePort, r.Private = same, same
				props, err := drivers.Address(db.Driver, r)
				require.NoError(t, err, db.Name)
				require.NotEmpty(t, props, "%s: driver %s made no properties", db.Name, db.Driver)
				for _, p := range props {
					require.True(t, strings.HasPrefix(p.Key, info.Prefix+"."), "%s: property %s outside the driver's prefix %s", db.Name, p.Key, info.Prefix)
				}
				m := driver.PropMap(props)
				maps.Copy(m, db.DriverProperties)
				require.NoError(t, info.Check(m, 4), "%s: the driver refuses its own properties %v", db.Name, m)
			}
		}
		withPW, err := drivers.Address(db.Driver, db.Reach([]string{"h1:1000"}, "pw-x"))
		require.NoError(t, err)
		switch db.Driver {
		case "postgres", "mysql", "redis":
			found := false
			for _, p := range withPW {
				found = found || strings.Contains(p.Value, "pw-x")
			}
			require.True(t, found, "%s: the password is in no property: %v", db.Name, withPW)
		}
	}
}

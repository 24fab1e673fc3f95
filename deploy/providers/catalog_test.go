package providers

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/compose"
	"github.com/dbarena/dbarena/deploy/kubernetes"
	"github.com/dbarena/dbarena/deploy/local"
	"github.com/dbarena/dbarena/deploy/terraform"
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

// TestEveryDatabaseIsReachable checks that the catalogue makes driver
// properties for every database, that the driver accepts them as its
// own (they carry its prefix), and that a password reaches the
// properties of the drivers that take one in them.
func TestEveryDatabaseIsReachable(t *testing.T) {
	for _, db := range deploy.Databases() {
		info, err := drivers.Lookup(db.Driver)
		require.NoError(t, err, db.Name)
		for _, a := range []deploy.Addressing{{}, {SplitPort: true}} {
			props := db.Endpoint([]string{"h1:1000", "h2:1000", "h3:1000"}, a)
			require.NotEmpty(t, props, "%s: no case for driver %s in Database.Endpoint", db.Name, db.Driver)
			for _, p := range props {
				require.True(t, strings.HasPrefix(p.Key, info.Prefix+"."), "%s: property %s outside the driver's prefix %s", db.Name, p.Key, info.Prefix)
			}
		}
		withPW := deploy.PropMap(db.Endpoint([]string{"h1:1000"}, deploy.Addressing{Password: "pw-x"}))
		switch db.Driver {
		case "postgres", "mysql", "redis":
			found := false
			for _, v := range withPW {
				found = found || strings.Contains(v, "pw-x")
			}
			require.True(t, found, "%s: the password is in no property: %v", db.Name, withPW)
		}
	}
}

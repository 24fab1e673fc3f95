package terraform

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/deploytest"
)

// TestVarsGolden keeps the module variables every database gets, on each
// cloud, alone and as a cluster, and the driver properties of its
// addresses, byte for byte. DBARENA_UPDATE_GOLDEN=1 rewrites the file
// after a change meant to alter the output.
func TestVarsGolden(t *testing.T) {
	var b strings.Builder
	opts := map[string]map[string]string{
		"gcp": {"cloud": "gcp", "project": "bench", "operator_cidr": "203.0.113.7/32", "ssh_public_key": "ssh-ed25519 AAAA me"},
		"aws": {"cloud": "aws", "ami": "ami-1", "operator_cidr": "203.0.113.7/32", "ssh_public_key": "ssh-ed25519 AAAA me"},
	}
	for _, db := range deploy.DatabaseNames() {
		for _, cloud := range []string{"gcp", "aws"} {
			for _, nodes := range []int{1, 3} {
				for _, version := range []string{"", "9.9"} {
					fmt.Fprintf(&b, "=== %s %s nodes=%d version=%q\n", db, cloud, nodes, version)
					_, vars, err := Vars(deploy.Request{Name: "t", Database: db, Nodes: nodes, Version: version, Options: opts[cloud]})
					if err != nil {
						fmt.Fprintf(&b, "error: %v\n", err)
						continue
					}
					j, err := json.MarshalIndent(vars, "", "  ")
					require.NoError(t, err)
					fmt.Fprintf(&b, "%s\n", j)
				}
			}
		}
		for _, addrs := range [][]string{{"34.1.2.3:9042"}, {"34.1.2.3:9042", "34.1.2.4:9042", "34.1.2.5:9042"}} {
			for _, outside := range []bool{true, false} {
				props, err := endpoint(db, addrs, outside)
				require.NoError(t, err, db)
				fmt.Fprintf(&b, "--- endpoint %s nodes=%d outside=%v\n%s", db, len(addrs), outside, deploytest.Props(props))
			}
		}
	}
	deploytest.Golden(t, "vars.golden", b.String())
}

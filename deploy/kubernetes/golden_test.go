package kubernetes

import (
	"fmt"
	"net"
	"strconv"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/deploy/deploytest"
	"github.com/dbarena/dbarena/driver"
)

// TestRenderGolden keeps what every database renders to, in every shape
// a request takes, byte for byte: the manifests, the Secret and the
// driver properties from this machine and from the loader pods.
// DBARENA_UPDATE_GOLDEN=1 rewrites the file after a change meant to
// alter the output.
func TestRenderGolden(t *testing.T) {
	deploytest.Golden(t, "render.golden", deploytest.Render(func(v deploytest.Variant) (string, error) {
		m, err := Render(v.Req)
		if err != nil {
			return "", err
		}
		y, err := m.YAML()
		if err != nil {
			return "", err
		}
		out := string(y)
		if m.Secret != nil {
			s, err := yaml.Marshal(m.Secret)
			if err != nil {
				return "", err
			}
			out += "--- secret\n" + string(s)
		}
		db, nodes := m.Database, max(v.Req.Nodes, 1)
		// Through a port-forward, and from inside the cluster by the
		// Service's name.
		pf, err := address(db, []string{"127.0.0.1:40000"}, nodes, true)
		if err != nil {
			return "", err
		}
		in, err := address(db, []string{net.JoinHostPort("db.ns.svc.cluster.local", strconv.Itoa(m.Port))}, nodes, false)
		if err != nil {
			return "", err
		}
		return out + fmt.Sprintf("--- port %d service %s\n--- props\n%s--- loader props\n%s", m.Port, m.Service,
			deploytest.Props(driver.PropMap(pf)), deploytest.Props(driver.PropMap(in))), nil
	}))
}

package compose

import (
	"fmt"
	"testing"

	"github.com/dbarena/dbarena/deploy/deploytest"
)

// TestRenderGolden keeps what every database renders to, in every shape
// a request takes, byte for byte: the compose file, the env file and the
// driver properties. DBARENA_UPDATE_GOLDEN=1 rewrites the file after a
// change meant to alter the output.
func TestRenderGolden(t *testing.T) {
	deploytest.Golden(t, "render.golden", deploytest.Render(func(v deploytest.Variant) (string, error) {
		p, err := Render(v.Req)
		if err != nil {
			return "", err
		}
		y, err := p.YAML()
		if err != nil {
			return "", err
		}
		addrs := make([]string, len(p.Exposed))
		for i := range addrs {
			addrs[i] = fmt.Sprintf("127.0.0.1:4000%d", i)
		}
		return fmt.Sprintf("%s--- env file\n%s--- props\n%s", y, p.EnvFile(), deploytest.Props(p.Props(addrs))), nil
	}))
}

package deploy

import (
	"bytes"
	_ "embed" // the Grafana dashboard
)

//go:embed assets/grafana/dbarena.json
var grafanaDashboard []byte

// GrafanaDashboard is a Grafana dashboard of the series dbarena serves
// with --metrics-addr (deploy/assets/grafana/dbarena.json): providers
// that add Grafana to a deployment provision it.
func GrafanaDashboard() []byte { return bytes.Clone(grafanaDashboard) }

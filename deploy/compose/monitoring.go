package compose

import (
	"fmt"
	"net"
	"strconv"

	"github.com/dbarena/dbarena/deploy"
)

// Monitoring images: Prometheus' official one, and the one
// scripts/images/build makes from Debian's package (option
// prometheus_image: local). Grafana has no default: option grafana names
// the image the user has.
const (
	PrometheusImage      = "prom/prometheus:v2.53.3"
	BuiltPrometheusImage = "dbarena.local/prometheus:2.42"
	defaultPrometheusUI  = 9090
	defaultGrafanaUI     = 3000
)

// Monitoring is what option prometheus and grafana add to a project.
type Monitoring struct {
	// Scrape is dbarena's live endpoint (--metrics-addr) as host:port;
	// "" adds no Prometheus.
	Scrape string
	// Image is Prometheus' image, UIPort where it serves on loopback.
	Image  string
	UIPort int
	// Grafana is Grafana's image ("" for none), GrafanaPort its port.
	Grafana     string
	GrafanaPort int
}

// monitoringOption reads one of the monitoring options into m; ok is
// false for another option.
func monitoringOption(m *Monitoring, k, v string) (ok bool, err error) {
	port := func() (int, error) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 65535 {
			return 0, fmt.Errorf("option %s: want a port number from 1 to 65535, got %q", k, v)
		}
		return n, nil
	}
	switch k {
	case "prometheus":
		// A bare port is dbarena's on loopback, as --metrics-addr reads it.
		if _, perr := strconv.Atoi(v); perr == nil {
			v = net.JoinHostPort("127.0.0.1", v)
		}
		if _, _, err := net.SplitHostPort(v); err != nil || v == "" {
			return true, fmt.Errorf("option prometheus: want the address dbarena serves with --metrics-addr (PORT or HOST:PORT), got %q", v)
		}
		m.Scrape = v
	case "prometheus_image":
		m.Image = v
		if v == deploy.LocalImage {
			m.Image = BuiltPrometheusImage
		}
	case "prometheus_port":
		m.UIPort, err = port()
	case "grafana":
		m.Grafana = v
	case "grafana_port":
		m.GrafanaPort, err = port()
	default:
		return false, nil
	}
	return true, err
}

// settle fills the defaults and checks that the options go together.
func (m *Monitoring) settle() error {
	if m.Scrape == "" {
		if m.Grafana != "" || m.Image != "" || m.UIPort != 0 || m.GrafanaPort != 0 {
			return fmt.Errorf("options prometheus_image, prometheus_port, grafana and grafana_port need option prometheus (the address dbarena serves with --metrics-addr)")
		}
		return nil
	}
	if m.Image == "" {
		m.Image = PrometheusImage
	}
	if m.UIPort == 0 {
		m.UIPort = defaultPrometheusUI
	}
	if m.Grafana != "" && m.GrafanaPort == 0 {
		m.GrafanaPort = defaultGrafanaUI
	}
	return nil
}

// addMonitoring adds Prometheus, scraping dbarena's live endpoint every
// second, and Grafana with the dashboard, both on the host's network so
// that they reach the endpoint and serve on loopback as the databases'
// ports are published, and the files they mount.
func addMonitoring(p *Project, m Monitoring) {
	if m.Scrape == "" {
		return
	}
	p.Files["prometheus.yml"] = []byte(fmt.Sprintf(`# dbarena's live endpoint (run it with --metrics-addr %s), every second.
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: dbarena
    static_configs: [{targets: [%q]}]
`, m.Scrape, m.Scrape))
	p.File.Services["prometheus"] = &Service{Image: m.Image, NetworkMode: "host",
		Command: []string{"--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus",
			"--web.listen-address=" + net.JoinHostPort("127.0.0.1", strconv.Itoa(m.UIPort))},
		Volumes: []string{"./prometheus.yml:/etc/prometheus/prometheus.yml:ro"}}
	if m.Grafana == "" {
		return
	}
	p.Files["grafana/datasource.yml"] = []byte(fmt.Sprintf(`apiVersion: 1
datasources:
  - name: Prometheus
    type: prometheus
    uid: dbarena-prometheus
    url: http://127.0.0.1:%d
    isDefault: true
    # The scrape interval: $__rate_interval then spans a few seconds,
    # not Grafana's 15 s default.
    jsonData: {timeInterval: 1s}
`, m.UIPort))
	p.Files["grafana/dashboards.yml"] = []byte(`apiVersion: 1
providers:
  - name: dbarena
    type: file
    options: {path: /var/lib/grafana/dashboards}
`)
	p.Files["grafana/dbarena.json"] = deploy.GrafanaDashboard()
	p.File.Services["grafana"] = &Service{Image: m.Grafana, NetworkMode: "host",
		Environment: map[string]string{"GF_SERVER_HTTP_ADDR": "127.0.0.1", "GF_SERVER_HTTP_PORT": strconv.Itoa(m.GrafanaPort),
			"GF_AUTH_ANONYMOUS_ENABLED": "true", "GF_AUTH_ANONYMOUS_ORG_ROLE": "Viewer"},
		Volumes: []string{"./grafana/datasource.yml:/etc/grafana/provisioning/datasources/dbarena.yml:ro",
			"./grafana/dashboards.yml:/etc/grafana/provisioning/dashboards/dbarena.yml:ro",
			"./grafana/dbarena.json:/var/lib/grafana/dashboards/dbarena.json:ro"},
		DependsOn: map[string]Dep{"prometheus": {Condition: "service_started"}}}
}

// URLs says where the project's monitoring serves ("" for none).
func (m Monitoring) URLs() string {
	if m.Scrape == "" {
		return ""
	}
	s := fmt.Sprintf("Prometheus at http://127.0.0.1:%d (scraping %s)", m.UIPort, m.Scrape)
	if m.Grafana != "" {
		s += fmt.Sprintf(", Grafana at http://127.0.0.1:%d", m.GrafanaPort)
	}
	return s
}

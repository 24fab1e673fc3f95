package report

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dbarena/dbarena/results"
)

//go:embed report.html.tmpl style.css charts.js uplot/uPlot.iife.min.js uplot/uPlot.min.css uplot/LICENSE
var assets embed.FS

// Render writes the self-contained HTML report of d to w: figures are
// inline SVG and the style sheet is embedded, so the file reads offline
// and survives being mailed on its own. The links to the figure files
// work once Write has put them next to it.
func Render(w io.Writer, d *results.Data) error {
	if d == nil {
		return errors.New("report: no results")
	}
	return renderPage(w, buildPage(d))
}

// Write renders <dir>/report.html and the figures into <dir>/figures/
// (NAME.svg and NAME.png each) for the results directory d was read
// from, and returns the report's path. The report is replaced
// atomically, so a reader never sees half of it.
func Write(d *results.Data) (string, error) {
	if d == nil {
		return "", errors.New("report: no results")
	}
	p := buildPage(d)
	if err := writeFigures(filepath.Join(d.Dir, results.FiguresDir), p); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := renderPage(&buf, p); err != nil {
		return "", err
	}
	path := filepath.Join(d.Dir, results.ReportFile)
	if err := results.WriteFileAtomic(path, buf.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	return path, nil
}

// writeFigures saves every drawn figure as SVG and PNG. A PNG that fails
// to draw is reported in the figure's place, like an SVG that did.
func writeFigures(dir string, p *page) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: figures: %w", err)
	}
	for _, g := range p.Groups {
		for _, f := range g.Figures {
			if f.svg == nil {
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, f.Name+".svg"), f.svg, 0o644); err != nil {
				return fmt.Errorf("report: figure %s: %w", f.Name, err)
			}
			png, err := f.png()
			if err != nil {
				f.PNGError = err.Error()
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, f.Name+".png"), png, 0o644); err != nil {
				return fmt.Errorf("report: figure %s: %w", f.Name, err)
			}
		}
	}
	return nil
}

// uplotScript is the library with its licence in a comment at its
// head, as the MIT licence asks of every copy. It is made here, not in
// the template: html/template drops comments from scripts.
func uplotScript(license, js []byte) template.JS {
	notice := strings.ReplaceAll(string(license), "*/", "* /")
	return template.JS("/* uPlot " + uplotVersion + ", embedded in this report.\n" + notice + "*/\n" + string(js)) // #nosec G203 -- our embedded files
}

// renderPage executes the template. It parses the template on each call
// rather than keeping a package-level one: parsing takes well under a
// millisecond next to drawing the figures.
func renderPage(w io.Writer, p *page) error {
	files := map[string][]byte{}
	for _, name := range []string{"style.css", "charts.js", "uplot/uPlot.iife.min.js", "uplot/uPlot.min.css", "uplot/LICENSE"} {
		b, err := assets.ReadFile(name)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		files[name] = b
	}
	// #nosec G203 -- our embedded files
	tmpl, err := template.New("report.html.tmpl").Funcs(template.FuncMap{
		"css":          func() template.CSS { return template.CSS(files["style.css"]) },
		"uplotCSS":     func() template.CSS { return template.CSS(files["uplot/uPlot.min.css"]) },
		"uplotJS":      func() template.JS { return uplotScript(files["uplot/LICENSE"], files["uplot/uPlot.iife.min.js"]) },
		"uplotVersion": func() string { return uplotVersion },
		"chartsJS":     func() template.JS { return template.JS(files["charts.js"]) },
	}).ParseFS(assets, "report.html.tmpl")
	if err != nil {
		return fmt.Errorf("report: template: %w", err)
	}
	if err := tmpl.Execute(w, p); err != nil {
		return fmt.Errorf("report: render: %w", err)
	}
	return nil
}

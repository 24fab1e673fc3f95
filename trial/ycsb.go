package trial

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/runner"
)

// YCSB's client properties that choose outputs or the database are
// mapped here onto dbarena's, or refused with dbarena's equivalent
// named: accepted and ignored, each wrote nothing, or the wrong thing,
// while the run looked fine.

// checkDB refuses a db property that names another database than the
// DRIVER argument: dbarena takes the database from the argument, and
// ignoring db= ran a benchmark against a different database than the
// one the property file was written for.
func checkDB(driverName string, p *properties.Set) error {
	db, src, ok := p.Lookup("db")
	db = strings.TrimSpace(db)
	if !ok || db == "" || db == driverName {
		return nil
	}
	want := drivers.ForYCSB(db)
	if slices.Contains(want, driverName) {
		return nil
	}
	if len(want) == 0 {
		return fmt.Errorf("%s: property \"db\"=%q: dbarena takes the database from the DRIVER argument (%s here), not from db; it knows no driver for this binding: drop db, or use one of %s",
			src, db, driverName, strings.Join(drivers.Names(), ", "))
	}
	return fmt.Errorf("%s: property \"db\"=%q is YCSB's binding for the %s driver, but the DRIVER argument is %s: run with DRIVER %s, or drop db",
		src, db, strings.Join(want, " or "), driverName, strings.Join(want, " or "))
}

// ycsbOutputs maps YCSB's output properties onto s: a JSON exporter
// becomes the JSON summary written to exportfile, and
// hdrhistogram.fileoutput=true an HdrHistogram interval log (--hdr-log)
// at hdrhistogram.output.path. Each mapping is said in s.Notes.
func ycsbOutputs(p *properties.Set, phase runner.Phase, s *Settings) error {
	if err := exporter(p, s); err != nil {
		return err
	}
	return hdrFileOutput(p, phase, s)
}

// exporter maps YCSB's exporter property. The text exporter is what
// dbarena writes anyway; the JSON ones write the JSON summary instead,
// which holds the same figures and more, in dbarena's own shape.
func exporter(p *properties.Set, s *Settings) error {
	v, src, ok := p.Lookup(core.Exporter)
	v = strings.TrimSpace(v)
	class := v[strings.LastIndex(v, ".")+1:]
	switch {
	case !ok || v == "" || class == "TextMeasurementsExporter":
		return nil
	case class != "JSONMeasurementsExporter" && class != "JSONArrayMeasurementsExporter":
		return fmt.Errorf("%s: property \"exporter\"=%q: dbarena writes YCSB's text summary (TextMeasurementsExporter, the default) or, for the JSON exporters, its JSON summary (--json FILE); it has no other exporter",
			src, v)
	case s.ExportFile == "":
		return fmt.Errorf("%s: property \"exporter\"=%q: dbarena writes its JSON summary to a file: give it with --json FILE (or exportfile=FILE)", src, v)
	case s.JSONOut != "" && s.JSONOut != s.ExportFile:
		return fmt.Errorf("%s: property \"exporter\"=%q would write the JSON summary to exportfile %s, but json.output names %s: keep one",
			src, v, s.ExportFile, s.JSONOut)
	}
	s.Notes = append(s.Notes, fmt.Sprintf("%s: exporter=%s: writing dbarena's JSON summary to %s (as --json %s); the text summary goes to stdout",
		src, class, s.ExportFile, s.ExportFile))
	s.JSONOut, s.ExportFile = s.ExportFile, ""
	return nil
}

// hdrFileOutput maps hdrhistogram.fileoutput=true. YCSB writes one
// HdrHistogram log per operation, at hdrhistogram.output.path (a prefix)
// followed by the operation's name and ".hdr"; dbarena writes one
// interval log with every operation tagged, so the file is the prefix
// followed by the phase's name and ".hlog".
func hdrFileOutput(p *properties.Set, phase runner.Phase, s *Settings) error {
	on, err := p.Bool(core.HdrFileOutput, false)
	if err != nil || !on {
		return err
	}
	_, src, _ := p.Lookup(core.HdrFileOutput)
	path := p.String(core.HdrOutputPath, "") + phase.String() + ".hlog"
	if s.HdrLog != "" && s.HdrLog != path {
		return fmt.Errorf("%s: property \"hdrhistogram.fileoutput\"=true writes the HdrHistogram log to %s, but hdr.log names %s: keep one",
			src, path, s.HdrLog)
	}
	s.HdrLog = path
	s.Notes = append(s.Notes, fmt.Sprintf("%s: hdrhistogram.fileoutput=true: writing one HdrHistogram interval log, every operation tagged, to %s (as --hdr-log %s)",
		src, path, path))
	return nil
}

// Package workloads holds YCSB's six standard workload property files,
// workloada to workloadf, dbarena's ledger (workloadledger) and TPC-C
// (workloadtpcc), and embeds them so that an experiment can name a
// built-in workload ("a" or "workloada", "ledger", "tpcc") without the
// files being present at run time.
package workloads

import (
	"embed"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dbarena/dbarena/properties"
)

// files is read-only: embed.FS cannot be modified.
//
//go:embed workloada workloadb workloadc workloadd workloade workloadf workloadledger workloadtpcc
var files embed.FS

// Names returns the short names of the built-in workloads: YCSB's a to
// f in its order, then the ledger and TPC-C.
func Names() []string { return []string{"a", "b", "c", "d", "e", "f", "ledger", "tpcc"} }

// Canonical returns the short name ("a") of a built-in workload given as
// "a" or "workloada", and whether name is a built-in at all. Names are
// case-sensitive, as YCSB's file names are.
func Canonical(name string) (string, bool) {
	short := strings.TrimPrefix(name, "workload")
	for _, n := range Names() {
		if n == short {
			return n, true
		}
	}
	return "", false
}

// FromPath returns the short name of the built-in workload a property
// file argument names, as YCSB's documentation and dbarena's help write
// it: the file name alone ("workloada") or its path in the repository
// ("workloads/workloada", also "./workloads/workloada"). A bare "a" is
// not one: it is too likely a file of the user's. Callers use it only
// when no such file exists, so a file of one's own always wins.
func FromPath(path string) (string, bool) {
	path = filepath.ToSlash(filepath.Clean(path))
	file := strings.TrimPrefix(path, "workloads/")
	if !strings.HasPrefix(file, "workload") {
		return "", false
	}
	return Canonical(file)
}

// Read returns the property file of a built-in workload, named "a" or
// "workloada", and its path in the repository ("workloads/workloada"),
// which is the file name that Properties uses for sources.
func Read(name string) (path string, data []byte, err error) {
	short, ok := Canonical(name)
	if !ok {
		return "", nil, fmt.Errorf("unknown built-in workload %q; valid: %s (or workloada to workloadf, workloadledger, workloadtpcc)",
			name, strings.Join(Names(), ", "))
	}
	file := "workload" + short
	data, err = files.ReadFile(file)
	if err != nil {
		return "", nil, fmt.Errorf("built-in workload %s: %w", file, err)
	}
	return "workloads/" + file, data, nil
}

// Properties parses a built-in workload. Each value's source is
// "workloads/workloadX:LINE", so an error it causes points at the file
// in the repository.
func Properties(name string) (*properties.Set, error) {
	path, data, err := Read(name)
	if err != nil {
		return nil, err
	}
	return properties.Parse(strings.NewReader(string(data)), path)
}

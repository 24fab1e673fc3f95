package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/workloads"
)

// loadProperties is properties.Load with YCSB's standard workloads
// built in: a -P argument that names no file but names workloada to
// workloadf, bare or as workloads/workloada, reads the embedded copy.
// The help's own examples say -P workloads/workloada, which outside a
// checkout of the repository named a missing file. Each substitution is
// said once on stderr, so that a file of one's own that went missing is
// not replaced in silence.
func loadProperties(stderr io.Writer, files, overrides []string) (*properties.Set, error) {
	p := properties.New()
	told := map[string]bool{}
	for _, f := range files {
		fp, err := properties.ParseFile(f)
		if err != nil {
			short, ok := workloads.FromPath(f)
			if !ok || !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			if fp, err = workloads.Properties(short); err != nil {
				return nil, err
			}
			if !told[f] {
				told[f] = true
				fmt.Fprintf(stderr, "dbarena: -P %s: no such file; using the built-in workload%s embedded in dbarena\n", f, short)
			}
		}
		p.Merge(fp)
	}
	o, err := properties.Load(nil, overrides)
	if err != nil {
		return nil, err
	}
	p.Merge(o)
	return p, nil
}

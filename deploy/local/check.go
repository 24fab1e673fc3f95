package local

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/internal/cgroup"
	"github.com/dbarena/dbarena/sysmetrics"
)

var _ deploy.Checker = (*Provider)(nil)

// Check implements deploy.Checker: the database is one this provider
// starts, its programs are installed (or, for Maven downloads, Maven is),
// and the resource limits fit this machine.
func (p *Provider) Check(req deploy.Request) error {
	db, launch, err := launcherOf(req)
	if err != nil {
		return err
	}
	var errs []error
	if err := checkNodes(db, req.Nodes); err != nil {
		errs = append(errs, err)
	}
	if launch.find != nil {
		if err := launch.find(); err != nil {
			errs = append(errs, err)
		}
	}
	for _, r := range launch.needs {
		if _, err := r.path(); err != nil {
			errs = append(errs, err)
		}
	}
	if name, version := launch.download, launch.version; name != "" && !cached(name, version) {
		if _, err := need("mvn", "apt-get install maven (it downloads "+name+" "+version+" from Maven Central once)"); err != nil {
			errs = append(errs, err)
		}
	}
	l := cgroup.Limits{CPUs: req.CPUs, MemoryBytes: req.MemoryBytes, Pin: req.Pin}
	if err := l.Validate(sysmetrics.CPUCount()); err != nil {
		errs = append(errs, err)
	}
	if need, have := int(math.Ceil(req.CPUs))*max(req.Nodes, 1), sysmetrics.CPUCount(); req.Pin && need >= have {
		// The load generator stays off a pinned database's cores.
		errs = append(errs, fmt.Errorf("deploy.pin: %d pinned cores asked for (cpus %v x %d nodes) of the %d this process may use: none would be left for the load generator",
			need, req.CPUs, max(req.Nodes, 1), have))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("local: %s (%s): %w", req.Name, req.Database, err)
	}
	return nil
}

// cached reports whether a Maven download is in the cache already.
func cached(name, version string) bool {
	dir, err := cacheDir()
	if err != nil {
		return false
	}
	entries, err := os.ReadDir(filepath.Join(dir, name+"-"+version, "lib"))
	return err == nil && len(entries) > 0
}

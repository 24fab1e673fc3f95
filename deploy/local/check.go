package local

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/limits"
	"github.com/dbarena/dbarena/sysmetrics"
)

var _ deploy.Checker = (*Provider)(nil)

// requirement is a program a database needs, with how to install it.
type requirement struct{ program, install string }

// requirements lists what each launcher needs installed.
func requirements(launcher string) []requirement {
	java := requirement{"java", "apt-get install openjdk-17-jre-headless"}
	switch launcher {
	case "postgres":
		return nil // pgBin looks in /usr/lib/postgresql as well as PATH
	case "redis":
		return []requirement{{"redis-server", "apt-get install redis-server"}}
	case "mariadb":
		return []requirement{{"mariadb-install-db", "apt-get install mariadb-server"}}
	case "cassandra", "dynamodb":
		return []requirement{java}
	case "scylladb":
		return []requirement{{"scylla", "install ScyllaDB (https://docs.scylladb.com/stable/getting-started/install-scylla/), or compare with cassandra locally: it speaks the same CQL"}}
	}
	return nil
}

// mavenNeeded names the Maven download a launcher needs when it is not
// cached yet.
func mavenNeeded(launcher string) (name, version string, ok bool) {
	switch launcher {
	case "cassandra":
		return "cassandra", CassandraVersion, true
	case "dynamodb":
		return "dynamodb-local", DynamoDBLocalVersion, true
	}
	return "", "", false
}

// Check implements deploy.Checker: the database is one this provider
// starts, its programs are installed (or, for Maven downloads, Maven is),
// and the resource limits fit this machine.
func (p *Provider) Check(req deploy.Request) error {
	db, _, err := launcherOf(req)
	if err != nil {
		return err
	}
	var errs []error
	if err := checkNodes(db, req.Nodes); err != nil {
		errs = append(errs, err)
	}
	if db.Local == "postgres" {
		if _, err := pgBin(); err != nil {
			errs = append(errs, err)
		}
	}
	for _, r := range requirements(db.Local) {
		if _, err := need(r.program, r.install); err != nil {
			errs = append(errs, err)
		}
	}
	if name, version, ok := mavenNeeded(db.Local); ok && !cached(name, version) {
		if _, err := need("mvn", "apt-get install maven (it downloads "+name+" "+version+" from Maven Central once)"); err != nil {
			errs = append(errs, err)
		}
	}
	l := limits.Limits{CPUs: req.CPUs, MemoryBytes: req.MemoryBytes, Pin: req.Pin}
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

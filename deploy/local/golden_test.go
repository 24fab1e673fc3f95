package local

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/deploytest"
)

// TestDatabasesGolden keeps which databases this provider starts, and
// what it says of a database it cannot start or cannot cluster, as they
// are. DBARENA_UPDATE_GOLDEN=1 rewrites the file after a change meant
// to alter them.
func TestDatabasesGolden(t *testing.T) {
	var b strings.Builder
	fmt.Fprintf(&b, "local databases: %s\n", strings.Join(Databases(), ", "))
	// The local clusters would start for real: only the refusals are
	// asked for.
	clusters := map[string]bool{"cassandra": true, "scylladb": true}
	for _, db := range deploy.DatabaseNames() {
		if clusters[db] {
			fmt.Fprintf(&b, "%s nodes=3: a cluster\n", db)
			continue
		}
		_, err := New().Up(context.Background(), deploy.Request{Name: "t", Database: db, Nodes: 3, WorkDir: t.TempDir()})
		require.Error(t, err, db)
		fmt.Fprintf(&b, "%s nodes=3: %v\n", db, err)
	}
	deploytest.Golden(t, "databases.golden", b.String())
}

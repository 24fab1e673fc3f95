package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbarena/dbarena/properties/core"
)

// TestCorePropertiesNamedOnce fails when code outside package
// properties/core spells a core property's name as a string literal:
// each is named once, and read and set through that name. Names that
// are also ordinary words of other vocabularies (a log field "target",
// a YAML key "seed", a command "verify") are left out: their literals
// mostly mean something else.
func TestCorePropertiesNamedOnce(t *testing.T) {
	words := map[string]bool{core.Table: true, core.Target: true, core.Seed: true, core.Drop: true, core.Verify: true,
		core.Stages: true, core.Exporter: true, core.DB: true, core.Workload: true, "hosts": true, "port": true}
	var names []string
	for _, k := range core.Known() {
		if !words[k] && !strings.Contains(k, "cassandra.") && !strings.HasPrefix(k, "db.") && !strings.HasPrefix(k, "redis.") {
			names = append(names, regexp.QuoteMeta(k))
		}
	}
	lit := regexp.MustCompile(`"(` + strings.Join(names, "|") + `)"`)
	root := filepath.Join("..", "..")
	out, err := exec.Command("git", "-C", root, "ls-files", "*.go").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, f := range strings.Fields(string(out)) {
		if strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, "properties/core/") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			if m := lit.FindString(line); m != "" {
				t.Errorf("%s:%d: the core property %s spelled as a literal: use its name in package properties/core", f, i+1, m)
			}
		}
	}
}

// Package providers is the one table of built-in deployment providers.
// Adding a deployment target means adding a package under deploy/ and one
// line here.
package providers

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/compose"
	"github.com/dbarena/dbarena/deploy/existing"
	"github.com/dbarena/dbarena/deploy/kubernetes"
	"github.com/dbarena/dbarena/deploy/local"
	"github.com/dbarena/dbarena/deploy/terraform"
)

// table lists every built-in provider.
func table() []deploy.Provider {
	return []deploy.Provider{
		compose.Provider{},
		existing.Provider{},
		kubernetes.Provider{},
		local.New(),
		terraform.Provider{},
	}
}

// Names returns the sorted provider names.
func Names() []string {
	var out []string
	for _, p := range table() {
		out = append(out, p.Name())
	}
	sort.Strings(out)
	return out
}

// Lookup returns the provider called name; an unknown name fails with the
// sorted list of valid ones.
func Lookup(name string) (deploy.Provider, error) {
	for _, p := range table() {
		if p.Name() == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("unknown deployment provider %q; valid: %s", name, strings.Join(Names(), ", "))
}

// Renderers returns the sorted names of the providers that write what
// they would run (deploy.Renderer).
func Renderers() []string {
	var out []string
	for _, p := range table() {
		if _, ok := p.(deploy.Renderer); ok {
			out = append(out, p.Name())
		}
	}
	sort.Strings(out)
	return out
}

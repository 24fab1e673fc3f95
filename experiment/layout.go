package experiment

// Where the targets run: side by side, so that rounds alternate them,
// or one after another; and which cores a pinned database is given.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dbarena/dbarena/experiment/spec"
)

// deploysBeside reports whether a provider's targets may be deployed
// side by side: processes on this machine, containers of this machine's
// engine, and databases that already run. A Terraform target's VMs
// would be billed while the others run, and a Kubernetes cluster's room
// for every target at once is not known before they deploy.
func deploysBeside(provider string) bool {
	return provider == "local" || provider == "compose" || provider == existingProvider
}

// layout is how an experiment's targets are deployed: groups deployed
// together, one after another, and the cores each pinned local target
// is given.
type layout struct {
	groups [][]*spec.Target
	// apart says why the targets were not deployed together ("" when
	// they were, or when there is only one).
	apart string
	cores map[*spec.Target][]int
}

// layoutOf decides the layout. In rounds the targets are deployed
// together where they fit: every provider one deploysBeside takes, and
// their memory limits within the machine's. Pinned local targets then
// share the last cores of this process's affinity (as many as the
// largest needs), so that the load generator keeps the first ones,
// whichever target it measures. Otherwise each target is a group of its
// own, as in sequential order.
func layoutOf(plan *spec.Plan, affinity []int, memory int64) layout {
	ts := make([]*spec.Target, len(plan.Spec.Targets))
	for i := range plan.Spec.Targets {
		ts[i] = &plan.Spec.Targets[i]
	}
	l := layout{cores: map[*spec.Target][]int{}}
	why := ""
	switch {
	case len(ts) < 2:
	case !plan.Spec.Run.Rounds():
		why = "the repetitions run in sequential order"
	default:
		why = apartReason(ts, memory)
	}
	if len(ts) < 2 || why != "" {
		l.apart = why
		for _, t := range ts {
			l.groups = append(l.groups, []*spec.Target{t})
		}
		return l
	}
	l.groups = [][]*spec.Target{ts}
	need := 0
	for _, t := range ts {
		if t.Deploy.Pin && t.Deploy.Provider == "local" {
			need = max(need, pinnedCores(t))
		}
	}
	if need == 0 || need >= len(affinity) {
		return l // the provider's check refuses a pin that leaves no core
	}
	for _, t := range ts {
		if t.Deploy.Pin && t.Deploy.Provider == "local" {
			l.cores[t] = slices.Clone(affinity[len(affinity)-pinnedCores(t):])
		}
	}
	return l
}

// apartReason says why targets cannot be deployed side by side, or "".
func apartReason(ts []*spec.Target, memory int64) string {
	var total int64
	for _, t := range ts {
		if !deploysBeside(t.Deploy.Provider) {
			return fmt.Sprintf("target %s's provider (%s) deploys one target at a time here: %s", t.Name, t.Deploy.Provider, providerApart(t.Deploy.Provider))
		}
		total += t.Deploy.MemoryBytes * int64(max(t.Deploy.Nodes, 1))
	}
	if memory > 0 && total > memory*9/10 {
		return fmt.Sprintf("the targets' memory limits add up to %s, more than 90%% of this machine's %s", bytesText(total), bytesText(memory))
	}
	return ""
}

// providerApart says why a provider's targets are deployed one at a
// time.
func providerApart(provider string) string {
	switch provider {
	case "terraform":
		return "each target's VMs would be billed while the others run"
	case "kubernetes":
		return "the cluster's room for every target at once is not checked before they deploy"
	}
	return "it is not known to hold several targets at once"
}

// pinnedCores is the cores a pinned local target takes: ceil(cpus) per
// node.
func pinnedCores(t *spec.Target) int {
	return int(math.Ceil(t.Deploy.CPUs)) * max(t.Deploy.Nodes, 1)
}

// bytesText writes a size in GiB or MiB.
func bytesText(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// names lists the targets' names.
func names(ts []*spec.Target) string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return strings.Join(out, ", ")
}

package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/driver/drivers"
	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/workload"
	"github.com/dbarena/dbarena/workloads"
)

// Shell completion: cobra's "completion bash|zsh|fish|powershell" prints
// the script, which asks the program itself (the hidden __complete
// command) what fits where the cursor is. These functions answer for the
// arguments whose valid values only dbarena knows. Shells filter the
// answers by what was typed; where files are the alternative, the
// filtering is done here, so that no match falls back to files.

// completeDriver completes the DRIVER of ycsb load, run and verify, each
// name with its summary as the description.
func completeDriver(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, d := range drivers.All() {
		out = append(out, cobra.CompletionWithDesc(d.Name, d.Summary))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// requestDistributionKey is the property whose values -p completes.
const requestDistributionKey = core.RequestDistribution

// completeProperty completes -p KEY=VALUE: after "requestdistribution="
// the distributions; before any "=", that key, with no space after it.
func completeProperty(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	key, _, ok := strings.Cut(toComplete, "=")
	switch {
	case !ok:
		return []cobra.Completion{requestDistributionKey + "="}, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	case key != requestDistributionKey:
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, d := range workload.RequestDistributions() {
		out = append(out, requestDistributionKey+"="+string(d))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeDistribution completes keys --distribution.
func completeDistribution(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, d := range workload.RequestDistributions() {
		out = append(out, string(d))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeWorkloadFile completes -P: the built-in workloads (workloada
// to workloadf) that match what was typed, else files.
func completeWorkloadFile(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, n := range workloads.Names() {
		if name := "workload" + n; strings.HasPrefix(name, toComplete) {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return nil, cobra.ShellCompDirectiveDefault
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeExperimentFile completes run's FILE: YAML files.
func completeExperimentFile(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return []cobra.Completion{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
}

// registerFlagCompletion sets the completion of cmd's flag name. The
// flags are the command's own, defined before, so registering cannot
// fail but by a programming error, which the completion test catches.
func registerFlagCompletion(cmd *cobra.Command, name string, f cobra.CompletionFunc) {
	_ = cmd.RegisterFlagCompletionFunc(name, f)
}

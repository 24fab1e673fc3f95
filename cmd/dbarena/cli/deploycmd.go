package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dbarena/dbarena/deploy"
	"github.com/dbarena/dbarena/deploy/providers"
	"github.com/dbarena/dbarena/experiment"
	"github.com/dbarena/dbarena/experiment/spec"
	"github.com/dbarena/dbarena/internal/bounds"
)

func newDeployCommand(st *State) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "deploy",
		Short: "Deployment assets: write what a provider would run; destroy what a terraform run left",
	}
	cmd.AddCommand(newRenderCommand(st), newDownCommand(st))
	return cmd
}

func newDownCommand(st *State) *cobra.Command {
	var tool string
	cmd := &cobra.Command{
		Use:   "down DIR...",
		Short: "Destroy what a terraform deployment created, from its state directory",
		Long: `Run tofu (or terraform) destroy in each state directory a terraform target
left behind (dbarena logs its path when it deploys, and keeps it when a
destroy fails), then remove the directory. Use it when a run was killed
before it could tear down, so that no VM keeps billing.`,
		Example: `  dbarena deploy down /tmp/dbarena/dbarena-terraform-scylla-1234`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(fmt.Errorf("deploy down: want at least one state directory"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			prov, err := providers.Lookup("terraform")
			if err != nil {
				return usageError(fmt.Errorf("deploy down: %w", err))
			}
			d, ok := prov.(deploy.Destroyer)
			if !ok {
				return usageError(fmt.Errorf("deploy down: the %s provider cannot destroy", prov.Name()))
			}
			var errs []error
			for _, dir := range args {
				if err := d.Destroy(cmd.Context(), dir, tool); err != nil {
					errs = append(errs, err)
					continue
				}
				fmt.Fprintf(st.Stdout, "destroyed %s\n", dir)
			}
			if err := errors.Join(errs...); err != nil {
				return &exitError{code: ExitFailure, err: err}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&tool, "tool", "", "tofu or terraform (default: whichever is installed)")
	return cmd
}

func newRenderCommand(st *State) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "render FILE",
		Short: "Write the Docker Compose projects, Kubernetes manifests or Terraform modules of an experiment's targets",
		Long: `Write what each target's provider would run, without running anything:
OUT is --out, by default NAME-render beside the experiment's results
(dbarena-results/NAME-render unless the file sets results:):
  compose:    OUT/TARGET/compose.yml (and secrets.env, mode 0600, when a
              target has a password), to check with
              docker compose -f OUT/TARGET/compose.yml config
  kubernetes: OUT/TARGET/manifests.yaml (Secrets are never written), to
              check with kubectl apply --dry-run=server -f ...
  terraform:  OUT/TARGET/ with the cloud's module and terraform.tfvars.json
              (mode 0600), to check with tofu init && tofu validate there
Secret references (${env:NAME}, ${file:PATH}) are resolved into the 0600
files only.`,
		Example: `  dbarena deploy render examples/compose-pg-vs-redis.yaml --out compose/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError(fmt.Errorf("deploy render: want exactly one experiment FILE, got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := bounds.ReadFile(args[0], bounds.MaxFileBytes)
			if err != nil {
				return usageError(fmt.Errorf("deploy render: %w", err))
			}
			s, err := spec.Parse(args[0], text, specOptions())
			if err != nil {
				return usageError(err)
			}
			if out == "" {
				out = renderDir(s)
			}
			if err := refuseGoPackage(out); err != nil {
				return usageError(fmt.Errorf("deploy render: --out %s: %w", out, err))
			}
			n := 0
			for i := range s.Targets {
				t := &s.Targets[i]
				p, err := providers.Lookup(t.Deploy.Provider)
				if err != nil {
					return usageError(fmt.Errorf("deploy render: %w", err))
				}
				r, ok := p.(deploy.Renderer)
				if !ok {
					continue
				}
				req, err := experiment.Request(t, experiment.Options{Secrets: st.Secrets})
				if err != nil {
					return usageError(fmt.Errorf("deploy render: %w", err))
				}
				file, err := r.Render(req, filepath.Join(out, t.Name))
				if err != nil {
					return usageError(fmt.Errorf("deploy render: %w", err))
				}
				fmt.Fprintf(st.Stdout, "%s: %s\n", t.Name, file)
				n++
			}
			if n == 0 {
				return usageError(fmt.Errorf("deploy render: %s has no target with deploy.provider %s", args[0], orList(providers.Renderers())))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory to write the assets into, one subdirectory per target (default: RESULTS/NAME-render, beside the experiment's results)")
	return cmd
}

// renderDir is where deploy render writes without --out: beside the
// experiment's results (the file's results: setting, dbarena-results by
// default), the folder a checkout already keeps out of version control,
// as NAME-render. It was "deploy", then "dbarena-render", each a new
// untracked folder in the working directory; "deploy" was also the Go
// package of that name, and the render wrote among its sources.
func renderDir(s *spec.Spec) string { return filepath.Join(s.Results, s.Name+"-render") }

// refuseGoPackage refuses a directory that holds Go files: it is source
// code, and rendered targets written into it would mix with (or, for a
// target named like a package, overwrite) the code.
func refuseGoPackage(dir string) error {
	gofiles, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(gofiles) == 0 {
		return nil // a missing directory is created by the render
	}
	return fmt.Errorf("the directory holds Go source files (%s): want a directory of its own, such as the default (RESULTS/NAME-render)",
		filepath.Base(gofiles[0]))
}

// orList writes names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

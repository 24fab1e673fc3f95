package terraform_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/stretchr/testify/require"
)

// module parses every .tf file of a module and returns its blocks.
func module(t *testing.T, cloud string) []*hclsyntax.Block {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("modules", cloud, "*.tf"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	p := hclparse.NewParser()
	var blocks []*hclsyntax.Block
	for _, f := range files {
		file, diags := p.ParseHCLFile(f)
		require.False(t, diags.HasErrors(), "%s: %s", f, diags.Error())
		blocks = append(blocks, file.Body.(*hclsyntax.Body).Blocks...)
	}
	return blocks
}

func labels(blocks []*hclsyntax.Block, typ string) map[string]*hclsyntax.Block {
	out := map[string]*hclsyntax.Block{}
	for _, b := range blocks {
		if b.Type == typ {
			out[strings.Join(b.Labels, ".")] = b
		}
	}
	return out
}

// source is the text of an expression as written.
func source(t *testing.T, cloud string, r hcl.Range) string {
	b, err := os.ReadFile(r.Filename)
	require.NoError(t, err)
	return string(r.SliceBytes(b))
}

func TestModules(t *testing.T) {
	for _, cloud := range []string{"gcp", "aws"} {
		t.Run(cloud, func(t *testing.T) {
			blocks := module(t, cloud)
			vars := labels(blocks, "variable")
			for _, v := range []string{"name", "db_count", "db_image", "db_port", "db_data_dir", "db_machine_type",
				"loader_count", "loader_machine_type", "operator_cidr", "ssh_public_key"} {
				require.Contains(t, vars, v, "variable %s", v)
			}
			// operator_cidr refuses 0.0.0.0/0 in the module itself, for
			// users of the module without dbarena.
			var validation *hclsyntax.Block
			for _, b := range vars["operator_cidr"].Body.Blocks {
				if b.Type == "validation" {
					validation = b
				}
			}
			require.NotNil(t, validation)
			require.Contains(t, source(t, cloud, validation.Body.Attributes["condition"].Expr.Range()), `!= "0.0.0.0/0"`)

			outs := labels(blocks, "output")
			for _, o := range []string{"db_internal_ips", "db_external_ips", "loader_external_ips", "db_port"} {
				require.Contains(t, outs, o)
			}

			// No rule admits the internet to a VM: ingress sources are
			// the operator's range, the loaders' or the databases' own.
			res := labels(blocks, "resource")
			var rules int
			for name, b := range res {
				switch {
				case strings.HasPrefix(name, "google_compute_firewall."):
					rules++
					if a, ok := b.Body.Attributes["source_ranges"]; ok {
						require.Equal(t, "[var.operator_cidr]", source(t, cloud, a.Expr.Range()), name)
					} else {
						require.Contains(t, b.Body.Attributes, "source_tags", name)
					}
				case strings.HasPrefix(name, "aws_security_group."):
					for _, in := range b.Body.Blocks {
						if in.Type != "ingress" {
							continue
						}
						rules++
						if a, ok := in.Body.Attributes["cidr_blocks"]; ok {
							require.Equal(t, "[var.operator_cidr]", source(t, cloud, a.Expr.Range()), name)
						} else {
							require.Contains(t, in.Body.Attributes, "security_groups", name)
						}
					}
				}
			}
			require.Positive(t, rules)

			// The database VMs format and mount local NVMe for the data.
			main, err := os.ReadFile(filepath.Join("modules", cloud, "main.tf"))
			require.NoError(t, err)
			require.Contains(t, string(main), "mkfs.xfs")
			require.Contains(t, string(main), "mount -o noatime")
			require.Contains(t, string(main), "prometheus-node-exporter", "node_exporter on every VM")
			_, err = os.Stat(filepath.Join("modules", cloud, "README.md"))
			require.NoError(t, err, "usable on its own, documented")
		})
	}
}

// TestModulesFormatted is `tofu fmt -check` without tofu: its formatter
// is hclwrite.Format, so a module file it would rewrite fails here.
// TestDockerModuleAsTheClouds: the docker cloud's module takes the
// variables the clouds' share and outputs what theirs do, so that the
// provider reads it as it reads theirs.
func TestDockerModuleAsTheClouds(t *testing.T) {
	blocks := module(t, "docker")
	vars := labels(blocks, "variable")
	for _, v := range []string{"name", "db_count", "db_image", "db_port", "db_data_dir", "loader_count", "ssh_user", "ssh_public_key"} {
		require.Contains(t, vars, v, "variable %s", v)
	}
	outs := labels(blocks, "output")
	for _, o := range []string{"db_internal_ips", "db_external_ips", "loader_external_ips", "db_port"} {
		require.Contains(t, outs, o)
	}
}

func TestModulesFormatted(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("modules", "*", "*.tf"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		require.Equal(t, string(hclwrite.Format(b)), string(b), "%s is not formatted as tofu fmt would", f)
	}
	require.Equal(t, "a = 1\n", string(hclwrite.Format([]byte("a   =   1\n"))), "the check above is worth something only if it reformats")
}

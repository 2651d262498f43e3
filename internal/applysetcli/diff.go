/*
Copyright 2026 The applyset-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package applysetcli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/applysets"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/parents"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/preview"
)

// diffOptions are diff's flags: the manifests, and what each form of diff
// reads besides.
type diffOptions struct {
	// kubectl is the form for any parent: --applyset and the apply's flags.
	kubectl parents.ApplySetDiff
	// hosts are where the form for the operator's sets fetches artifacts.
	hosts applysets.ArtifactHosts
	// given tells whether a flag was given on the command line.
	given func(name string) bool
}

func newDiffCommand(o *cli.Options) *cobra.Command {
	d := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff -f FILE|DIR --applyset=PARENT [--prune]",
		Short: "Preview an apply of a set: every change and every prune, with server-side dry-run",
		Long: `diff shows what 'kubectl apply --server-side --applyset=PARENT --prune' would do: each
object is applied with server-side dry-run, so the API server's defaulting, admission
webhooks and server-side apply merge are in the result, and the live object and the result
are printed as a unified diff. With --prune, the members the apply would delete follow, as
removals. Secret data is masked. Nothing in the cluster changes.

For the operator's ApplySets and ClusterApplySets, name the set's manifest with -f and no
--applyset: diff previews what the operator would do with that spec. Its sources are read
as you: ConfigMaps and Secrets with your rights, and oci and flux sources fetched from here
(the credentials and CA Secrets they name, and the Flux objects, read with your rights from
the set's namespace, within the operator's bounds on size, files and kustomize builds),
naming the digest each read. Their urls are the choice of whoever wrote the set or the Flux
object's status, so they are fetched only from the hosts --artifact-allowed-hosts names
(none by default), and a flux artifact only from its object's own path.

Exit status: 0 no differences, 1 differences, 2 an error.`,
		Example: `  # Preview the next apply of a kubectl-managed set
  kubectl applyset diff -f manifests/ --applyset=web -n shop --prune

  # The same for a ConfigMap parent, reading standard input
  kustomize build overlays/prod | kubectl applyset diff -f - --applyset=configmaps/web -n shop --prune

  # Preview a change to one of the operator's sets
  kubectl applyset diff -f applyset.yaml

  # ... whose flux source source-controller serves at an address reachable from here
  kubectl applyset diff -f applyset.yaml --artifact-allowed-hosts=http://source-controller.flux-system.svc.cluster.local.`,
	}
	d.given = cmd.Flags().Changed
	cmd.Flags().StringVar(&d.kubectl.Parent, "applyset", "", "The set's parent as kubectl's --applyset names it: NAME (a Secret), or TYPE/NAME.")
	o.CompleteParentFlag(cmd, "applyset")
	cmd.Flags().BoolVar(&d.kubectl.Prune, "prune", false, "Also show the members the apply would delete.")
	cmd.Flags().StringVar(&d.kubectl.FieldManager, "field-manager", "kubectl", "The field manager the apply would use.")
	cmd.Flags().BoolVar(&d.kubectl.ForceConflicts, "force-conflicts", false, "Preview an apply that takes fields other appliers own.")
	d.hosts.BindFlags(cmd.Flags())
	return cli.Files{MaxInputHelp: "The most bytes -f, and the sources of the operator's sets, may read, after decompression.", Connects: true,
		Run: func(ctx context.Context, f *cli.Read) (cli.Result, error) { return d.diff(ctx, f) }}.Bind(o, cmd)
}

// diff previews the apply of the set the manifests are for: kubectl's to
// the parent --applyset names, or the operator's of the sets they declare.
func (d *diffOptions) diff(ctx context.Context, f *cli.Read) (*preview.Preview, error) {
	var (
		p   *preview.Preview
		err error
	)
	switch {
	case d.kubectl.Parent != "":
		p, err = parents.PreviewApplySet(ctx, f.Options, f.Clients, f.Inputs, d.kubectl)
	case applysets.DeclaresSets(f.Inputs):
		if err := d.refuseApplyFlags(); err != nil {
			return nil, err
		}
		p, err = applysets.PreviewSets(ctx, f.Options, f.Clients, f.Inputs, applysets.Fetch{MaxInput: f.MaxInput, Hosts: d.hosts})
	default:
		return nil, fmt.Errorf("name the set's parent with --applyset, or give the manifest of an ApplySet or ClusterApplySet")
	}
	if err != nil {
		return nil, err
	}
	return p, p.ReadPruned(ctx, f.Clients)
}

// refuseApplyFlags refuses, for a preview of the operator's sets, the flags
// of kubectl's apply it would otherwise ignore: the set's spec decides.
func (d *diffOptions) refuseApplyFlags() error {
	for _, f := range []struct{ flag, instead string }{
		{"prune", "spec.prune decides, and the preview shows what the operator would prune"},
		{"field-manager", "the operator applies as its own field manager"},
		{"force-conflicts", "spec.force decides"},
	} {
		if d.given != nil && d.given(f.flag) {
			return fmt.Errorf("--%s does not apply to a preview of the operator's sets: %s; leave it out", f.flag, f.instead)
		}
	}
	return nil
}

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

// Package adopt is `kubectl applyset adopt`: it makes a group of objects
// another tool recorded (a Helm release, a Flux Kustomization, an Argo CD
// Application, a kpt or cli-utils inventory, kubectl's legacy prune by
// label) a kubectl ApplySet, or with --to applyset one of the operator's
// ApplySets, writing only what kubectl's own apply would have written. Each
// record is a source (sources.go), one file each.
package adopt

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// What adopt makes of the group, by --to.
const (
	adoptToKubectl = "kubectl"
	adoptToSet     = "applyset"
)

// NewCommand returns adopt, which makes a group of objects another tool
// recorded a kubectl ApplySet or one of the operator's ApplySets.
func NewCommand(o *cli.Options) *cobra.Command {
	var (
		src            sourceFlags
		ask            *cli.Ask
		force          bool
		to             string
		serviceAccount string
	)
	cmd := &cobra.Command{
		Use:   "adopt PARENT (-l SELECTOR --kinds KIND,... | --from TYPE/NAME) [--to kubectl|applyset]",
		Short: "Make an existing group of objects a kubectl ApplySet or the operator's ApplySet, changing nothing else",
		Long: `Turn a group of objects another tool recorded into a kubectl ApplySet, so that the next
KUBECTL_APPLYSET=true kubectl apply --server-side --prune --applyset=PARENT owns and prunes
exactly them. The group is read from the old tool's record, never guessed:
` + sourcesHelp() + `It writes the parent (a Secret unless PARENT names a ConfigMap or a custom resource of a
parent type) as kubectl does, and on each object only the applyset.kubernetes.io/part-of label,
by server-side apply under kubectl's field manager: no other value changes, nothing is deleted
or recreated. The fields a Helm release applied server-side, and those kubectl's field
manager already applied, become kubectl's declaration with the label. It refuses objects in another set or owned by another object, and a parent
that belongs to another tool or set. It shows the plan and asks first, unless --yes;
--dry-run=server sends every write with server-side dry-run and changes nothing.

With --to applyset, PARENT is applyset/NAME and adopt creates that ApplySet of the operator,
declaring what the old tool declared, never the live object: the objects of a Helm release's
manifest, kubectl's last-applied-configuration, or else the fields the old tool's field manager
applied (kustomize-controller, argocd-controller, kubectl for kpt and cli-utils), read with the
type's schema from the API server (an object whose type has none is refused). So the set takes
over no default, no autoscaler's replicas and no injected sidecar. The declaration is inline, or
in a ConfigMap NAME-adopted beside the set when large, or in a Secret NAME-adopted when it
declares a Secret, whose data would be read inline by everyone who may read the set. The part-of label is applied by the
operator's field manager, joined to the old tool's apply entries, before the set exists; the
set's first apply then owns exactly what it declares and records its members in status.`,
		Example: `  kubectl applyset adopt secret/web -n shop -l app=web --kinds ConfigMap,Deployment.apps --yes
  kubectl applyset adopt secret/web -n shop --from helm/web --dry-run=server
  kubectl applyset adopt secret/web -n shop --from kustomization/web --from-namespace flux-system
  kubectl applyset adopt secret/web -n shop --from application/web --from-namespace argocd --dry-run=server
  kubectl applyset adopt applyset/web -n shop -l app=web --kinds ConfigMap,Deployment.apps --to applyset --service-account deployer`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if to != adoptToKubectl && to != adoptToSet {
				return fmt.Errorf("--to %q: adopt makes a kubectl set (kubectl) or one of the operator's ApplySets (applyset)", to)
			}
			if to == adoptToKubectl && serviceAccount != "" {
				return fmt.Errorf("--service-account names whom an ApplySet acts as: give it with --to applyset")
			}
			c, err := o.Clients()
			if err != nil {
				return err
			}
			if to == adoptToSet {
				return adoptIntoSet(cmd, o, c, args[0], src, serviceAccount, ask, force)
			}
			return adoptIntoKubectl(cmd, o, c, args[0], src, ask, force)
		},
	}
	cmd.Flags().StringVarP(&src.selector, "selector", "l", "", "The label selector kubectl apply --prune -l used.")
	cmd.Flags().StringSliceVar(&src.kinds, "kinds", nil, "The kinds kubectl's legacy prune covered (--prune-allowlist): Kind.group, resource.group or group/version/Kind.")
	cmd.Flags().StringVar(&src.from, "from", "", fromFlagHelp())
	cmd.Flags().StringVar(&src.fromNamespace, "from-namespace", "", "The namespace of --from; the namespace in use if empty.")
	cmd.Flags().BoolVar(&force, "force", false, "Adopt although the old tool is still active (a Kustomization not suspended, an Application with automated sync, a Helm operation pending, a ResourceGroup Config Sync keeps).")
	ask = o.AddAsk(cmd, "Adopt without asking.", true)
	cmd.Flags().StringVar(&to, "to", adoptToKubectl, "What the group becomes: kubectl (a kubectl ApplySet of PARENT) or applyset (the operator's ApplySet PARENT, applyset/NAME, created by adopt).")
	cmd.Flags().StringVar(&serviceAccount, "service-account", "", "With --to applyset: the ServiceAccount the set acts as (spec.serviceAccountName); the operator's default if empty.")
	return cmd
}

// adoptIntoKubectl plans, shows, asks and writes: the parent first, as
// kubectl does, so that an interrupted run leaves every labelled object
// within its hints.
func adoptIntoKubectl(cmd *cobra.Command, o *cli.Options, c *cli.Clients, parentArg string, flags sourceFlags, ask *cli.Ask, force bool) error {
	src, err := flags.source(c)
	if err != nil {
		return err
	}
	parent, err := adoptParentOf(cmd.Context(), c, parentArg)
	if err != nil {
		return err
	}
	plan, err := planAdoption(cmd.Context(), c, src, parent, kubectlTooling())
	if err != nil {
		return err
	}
	plan.print(o.Streams.Out)
	if refusals := plan.refusals(force); len(refusals) > 0 {
		return fmt.Errorf("nothing changed:\n  %s", strings.Join(refusals, "\n  "))
	}
	if err := ask.Confirm(fmt.Sprintf("Adopt %d objects?", len(plan.objects))); err != nil {
		return err
	}
	dr := ask.DryRun
	if err := writeAdoptedParent(cmd.Context(), c, plan, dr); err != nil {
		return err
	}
	for i, a := range plan.objects {
		if err := writePartOf(cmd.Context(), c, plan.id, a, plan.group.handedToKubectl, dr); err != nil {
			return fmt.Errorf("%d of %d objects adopted, then: %w", i, len(plan.objects), err)
		}
	}
	fmt.Fprintf(o.Streams.Out, "%d objects adopted into %s%s%s; KUBECTL_APPLYSET=true kubectl apply --server-side --prune --applyset=%s%s now owns them\n",
		len(plan.objects), cli.ParentName(parent), cli.InNamespace(parent.Namespace), dr.Suffix(), cli.ParentName(parent), cli.NSFlag(parent.Namespace))
	return nil
}

// adoptParentOf names the parent and checks that kubectl accepts its type:
// a Secret, a ConfigMap, or a custom resource of a CRD labelled as a parent
// type that is not one of the operator's own sets.
func adoptParentOf(ctx context.Context, c *cli.Clients, arg string) (membership.ParentRef, error) {
	ref, err := cli.ParentOf(c, arg)
	if err != nil {
		return ref, err
	}
	gk := ref.Type.GroupKind
	switch {
	case gk.Group == "" && (gk.Kind == "Secret" || gk.Kind == "ConfigMap"):
		return ref, nil
	case gk.Group == "":
		return ref, fmt.Errorf("%s: kubectl accepts a Secret, a ConfigMap or a custom resource of a parent type as parent", cli.ParentName(ref))
	case cli.IsOperatorSet(ref):
		return ref, fmt.Errorf("%s: the operator applies its own sets; adopt makes kubectl sets", cli.ParentName(ref))
	}
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	crd, err := c.Metadata.Resource(crds).Get(ctx, ref.Type.Resource.GroupResource().String(), metav1.GetOptions{})
	if err != nil {
		return ref, fmt.Errorf("%s: reading its CRD: %w", cli.ParentName(ref), err)
	}
	if _, ok := crd.Labels[applyset.ParentTypeLabel]; !ok {
		return ref, fmt.Errorf("%s: its CRD has no %s label, so kubectl does not accept it as a parent", cli.ParentName(ref), applyset.ParentTypeLabel)
	}
	return ref, nil
}

// kubectlTooling is the tooling kubectl of the client libraries the plugin is
// built with writes (kubectl/v1.37.1 for client-go v0.37.1). kubectl checks
// only the name, and writes its own version on its next apply.
func kubectlTooling() applyset.Tooling {
	tooling := applyset.Tooling{Name: identity.KubectlFieldManager}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return tooling
	}
	for _, dep := range info.Deps {
		if dep.Path == "k8s.io/client-go" && strings.HasPrefix(dep.Version, "v0.") {
			tooling.Version = "v1." + strings.TrimPrefix(dep.Version, "v0.")
		}
	}
	return tooling
}

// writeAdoptedParent applies the parent's contract fields as kubectl does:
// all of them, under kubectl's parent field manager, taking them over when
// another manager holds them.
func writeAdoptedParent(ctx context.Context, c *cli.Clients, plan *adoptPlan, dr *cli.DryRun) error {
	ref := plan.parent
	gvk := ref.Type.Resource.GroupVersion().WithKind(ref.Type.GroupKind.Kind)
	patch := applyset.ParentPatch(gvk, ref.Key(), applyset.ParentFields{
		ID: true, Tooling: &plan.tooling, GroupKinds: plan.kinds, AdditionalNamespaces: plan.namespaces,
	})
	data, err := json.Marshal(patch.Object)
	if err != nil {
		return err
	}
	resource := c.Dynamic.Resource(ref.Type.Resource).Namespace(ref.Namespace)
	opts := metav1.PatchOptions{FieldManager: plan.tooling.ParentFieldManager(), DryRun: dr.Opts()}
	_, err = resource.Patch(ctx, ref.Name, types.ApplyPatchType, data, opts)
	if apierrors.IsConflict(err) {
		opts.Force = ptr.To(true)
		_, err = resource.Patch(ctx, ref.Name, types.ApplyPatchType, data, opts)
	}
	if err != nil {
		return fmt.Errorf("writing the parent %s: %w", cli.ParentName(ref), err)
	}
	return nil
}

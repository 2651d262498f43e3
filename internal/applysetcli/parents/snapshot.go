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

package parents

import (
	"context"
	"fmt"
	"io"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// readSnapshot reads every parent (of namespace, or all) and every member,
// with its progress and warnings written to errOut.
func readSnapshot(ctx context.Context, errOut io.Writer, c *cli.Clients, sopts membership.SnapshotOptions) (*membership.Snapshot, error) {
	sopts.Progress = progress(errOut)
	snap, err := membership.Read(ctx, membership.Options{Discovery: c.Disco, Metadata: c.Metadata}, sopts)
	if err != nil {
		return nil, err
	}
	endProgress(errOut)
	var narrowed []string
	for _, f := range snap.Failing {
		if f.Namespace != "" {
			narrowed = append(narrowed, f.Resource.GroupResource().String())
			continue
		}
		fmt.Fprintf(errOut, "Warning: cannot list %s: %v; its parents and members are missing\n", f.Resource.GroupResource(), f.Err)
	}
	if len(narrowed) > 0 {
		fmt.Fprintf(errOut, "Warning: you may not list %d types in every namespace (%s), so they were listed in namespace %s only; "+
			"members of theirs elsewhere are missing\n", len(narrowed), text.Summarize(narrowed, 3), sopts.Namespace)
	}
	return snap, nil
}

// verifyParent reads the parent ref names with its namespace's members, and
// judges it as the operator's parent reconciler would.
func verifyParent(ctx context.Context, errOut io.Writer, c *cli.Clients, ref membership.ParentRef) (membership.Parent, membership.Verdict, error) {
	snap, err := readSnapshot(ctx, errOut, c, membership.SnapshotOptions{Namespace: ref.Namespace})
	if err != nil {
		return membership.Parent{}, membership.Verdict{}, err
	}
	for _, p := range snap.Parents {
		if p.Ref.Key() == ref.Key() {
			return p, snap.Verify(p, membership.NewAppliers(identity.TrustedAppliers())), nil
		}
	}
	for _, f := range snap.Failing {
		if f.GroupKind == ref.Type.GroupKind {
			return membership.Parent{}, membership.Verdict{}, fmt.Errorf("%s%s was not read: its type could not be listed: %w",
				cli.ParentName(ref), cli.InNamespace(ref.Namespace), f.Err)
		}
	}
	return membership.Parent{}, membership.Verdict{}, fmt.Errorf("%s%s was not read: its type is no parent type (a Secret, a ConfigMap, "+
		"or a custom resource of a CRD labelled %s)", cli.ParentName(ref), cli.InNamespace(ref.Namespace), applyset.ParentTypeLabel)
}

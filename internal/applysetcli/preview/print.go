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

package preview

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// ReadPruned reads, as the user of c, the members the prune would delete,
// which Text shows as removed.
func (p *Preview) ReadPruned(ctx context.Context, c *cli.Clients) error {
	for _, ch := range p.Pruned.Changes {
		if ch.Action != apply.Pruned {
			continue
		}
		live, err := readLive(ctx, c, ch.Ref)
		if err != nil {
			return err
		}
		if p.prunedLive == nil {
			p.prunedLive = map[apply.ObjectRef]*unstructured.Unstructured{}
		}
		p.prunedLive[ch.Ref] = live
	}
	return nil
}

// Text writes a unified diff per object that would change, as kubectl diff
// does, and nothing else.
func (p *Preview) Text(out io.Writer) error { return p.Annotate(out, io.Discard) }

// Annotate writes a unified diff per object that would change to out, as
// Text does, and to notes what else a person should know, beside the
// object it is about: why it is not shown as the API server would make it,
// conflicts, members kept, drift left in place, and a summary.
func (p *Preview) Annotate(out, notes io.Writer) error {
	for _, ch := range p.Changes.Changes {
		switch ch.Action {
		case apply.Created, apply.Configured:
			result := ch.Preview
			if result == nil {
				result = p.Declared[ch.Ref].Object
				fmt.Fprintf(notes, "%s: shown as declared: %s\n", ch.Ref, ch.Reason)
			}
			if err := writeDiff(out, ch.Ref, ch.Live, result); err != nil {
				return err
			}
		case apply.Recreated:
			fmt.Fprintf(notes, "%s: %s may not change: the apply would delete the object and create it again\n", ch.Ref, strings.Join(ch.Fields, ", "))
		case apply.Waiting:
			fmt.Fprintf(notes, "%s: not previewed: %s\n", ch.Ref, ch.Reason)
		case apply.Failed:
			fmt.Fprintf(notes, "%s: %s\n", ch.Ref, p.failure(ch))
		}
	}
	for _, ch := range p.Pruned.Changes {
		switch ch.Action {
		case apply.Pruned:
			if err := writeDiff(out, ch.Ref, p.prunedLive[ch.Ref], nil); err != nil {
				return err
			}
		case apply.Skipped:
			fmt.Fprintf(notes, "%s: not pruned: %s\n", ch.Ref, ch.Reason)
		case apply.Foreign:
			fmt.Fprintf(notes, "%s: not pruned, not a member: %s\n", ch.Ref, ch.Reason)
		}
	}
	if err := p.printDrift(notes); err != nil {
		return err
	}
	p.summarize(notes)
	return nil
}

// printDrift shows, to standard error, the drift a set with driftPolicy
// Report leaves in place: who changed what, and a diff from what the set
// declares to the object as it is. The apply would not change it, so it
// is no difference of the diff proper and leaves the exit status alone.
func (p *Preview) printDrift(notes io.Writer) error {
	for _, d := range p.Changes.DriftLeft {
		fmt.Fprintf(notes, "%s: drift left in place (spec.driftPolicy Report): %s changed %s\n", d.Ref, d.Manager, strings.Join(d.Fields, ", "))
		for _, ch := range p.Changes.Changes {
			if ch.Ref != d.Ref || ch.Live == nil || ch.Preview == nil {
				continue
			}
			// The dry run's generation moves with the spec it puts back: no change of anyone's.
			declared, live := ch.Preview.DeepCopy(), ch.Live.DeepCopy()
			unstructured.RemoveNestedField(declared.Object, "metadata", "generation")
			unstructured.RemoveNestedField(live.Object, "metadata", "generation")
			if err := writeDiffAs(notes, ch.Ref, declared, live, "declared/", "live/"); err != nil {
				return err
			}
		}
	}
	return nil
}

// failure says why an object could not be previewed, in the words of this
// command rather than the operator's.
func (p *Preview) failure(ch apply.Change) string {
	for _, c := range p.Changes.Conflicts {
		if c.Ref == ch.Ref {
			return fmt.Sprintf("conflict: %s applied %s with other values; change the manifest to match, "+
				"or take them with --force-conflicts", c.Manager, strings.Join(c.Fields, ", "))
		}
	}
	return ch.Reason
}

func (p *Preview) summarize(w io.Writer) {
	create, change := p.Changes.Count(apply.Created), p.Changes.Count(apply.Configured)+p.Changes.Count(apply.Recreated)
	fmt.Fprintf(w, "%d to create, %d to change, %d unchanged", create, change, p.Changes.Count(apply.Unchanged))
	if p.PruneChecked {
		fmt.Fprintf(w, ", %d to prune", p.Pruned.Count(apply.Pruned))
	}
	if n := len(p.Changes.DriftLeft); n > 0 {
		fmt.Fprintf(w, ", %d with drift left in place", n)
	}
	fmt.Fprintln(w, "; nothing was changed")
}

// Err is why the preview is not whole: objects that could not be
// previewed, or the problems the dry run ran into.
func (p *Preview) Err() error {
	if failed := p.Changes.Count(apply.Failed); failed > 0 {
		return fmt.Errorf("%d of %d objects could not be previewed", failed, len(p.Changes.Changes))
	}
	return errors.Join(p.Problems...)
}

// Found reports whether any object differs: diff's findings.
func (p *Preview) Found() bool { return p.count() > 0 }

func readLive(ctx context.Context, c *cli.Clients, ref apply.ObjectRef) (*unstructured.Unstructured, error) {
	mapping, err := c.Mapper.RESTMapping(ref.GroupKind)
	if err != nil {
		return nil, err
	}
	return c.Dynamic.Resource(mapping.Resource).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
}

// writeDiff writes live against result as a unified diff of their YAML; nil
// stands for an object that does not exist.
func writeDiff(w io.Writer, ref apply.ObjectRef, live, result *unstructured.Unstructured) error {
	return writeDiffAs(w, ref, live, result, "live/", "merged/")
}

// writeDiffAs writes older against newer, their sides named from and to.
func writeDiffAs(w io.Writer, ref apply.ObjectRef, older, newer *unstructured.Unstructured, from, to string) error {
	before, after := withoutBookkeeping(older), withoutBookkeeping(newer)
	if isSecret(ref) {
		maskSecretData(before, after)
	}
	beforeLines, err := yamlLines(before)
	if err != nil {
		return err
	}
	afterLines, err := yamlLines(after)
	if err != nil {
		return err
	}
	name := diffName(ref, older, newer)
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: beforeLines, B: afterLines, FromFile: from + name, ToFile: to + name, Context: 3})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, text)
	return err
}

// withoutBookkeeping is the object without what only the API server's bookkeeping
// changes: managed fields, which a diff of every apply would show.
func withoutBookkeeping(obj *unstructured.Unstructured) map[string]any {
	if obj == nil {
		return nil
	}
	out := obj.DeepCopy().Object
	unstructured.RemoveNestedField(out, "metadata", "managedFields")
	return out
}

func yamlLines(obj map[string]any) ([]string, error) {
	if obj == nil {
		return nil, nil
	}
	data, err := yaml.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return difflib.SplitLines(string(data)), nil
}

// diffName names an object's side of the diff as kubectl diff names its
// files: group.version.Kind.namespace.name.
func diffName(ref apply.ObjectRef, objs ...*unstructured.Unstructured) string {
	version := ""
	for _, obj := range objs {
		if obj != nil {
			version = obj.GroupVersionKind().Version
			break
		}
	}
	parts := make([]string, 0, 5)
	for _, p := range []string{ref.GroupKind.Group, version, ref.GroupKind.Kind, ref.Namespace, ref.Name} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ".")
}

func isSecret(ref apply.ObjectRef) bool {
	return ref.GroupKind.Group == "" && ref.GroupKind.Kind == "Secret"
}

// Masks for Secret values, as kubectl diff writes them: a value that changes
// is marked on each side, so that the diff shows that it changes and not to what.
const (
	masked       = "***"
	maskedBefore = "*** (before)"
	maskedAfter  = "*** (after)"
)

// maskSecretData replaces the values of a Secret's data and stringData.
func maskSecretData(before, after map[string]any) {
	for _, field := range []string{"data", "stringData"} {
		b, _, _ := unstructured.NestedMap(before, field)
		a, _, _ := unstructured.NestedMap(after, field)
		for k, bv := range b {
			av, both := a[k]
			switch {
			case both && fmt.Sprint(av) == fmt.Sprint(bv):
				b[k], a[k] = masked, masked
			case both:
				b[k], a[k] = maskedBefore, maskedAfter
			default:
				b[k] = masked
			}
		}
		for k := range a {
			if _, done := b[k]; !done {
				a[k] = masked
			}
		}
		if b != nil {
			_ = unstructured.SetNestedMap(before, b, field)
		}
		if a != nil {
			_ = unstructured.SetNestedMap(after, a, field)
		}
	}
}

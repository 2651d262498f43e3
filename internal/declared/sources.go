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

package declared

import (
	"fmt"
	"strings"

	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// sourceName names a source as origins and messages do: ConfigMap team-a/manifests.
func sourceName(src applyv1alpha1.ClusterSource) string {
	return fmt.Sprintf("%s %s/%s", src.Kind, src.Namespace, src.Name)
}

// originPrefix is how the origins Gather gives src's objects begin; keys
// hold no spaces, so one source's prefix is never another key's.
func originPrefix(src applyv1alpha1.ClusterSource) string {
	p := sourceName(src) + " key "
	if src.Key != "" {
		p += src.Key + " document "
	}
	return p
}

// maxRevision bounds the revision status.sources records: a Flux object's
// writer chooses it.
const maxRevision = 256

// CountBySource counts the objects each of the set's sources declared, and
// gives the oci and flux sources the digests and revisions (by index, as
// Gathered has them) of the artifacts they were read from.
func CountBySource(set applyv1alpha1.Set, objects []apply.Object, g Gathered) []applyv1alpha1.SourceStatus {
	sources := set.GetSources()
	out := make([]applyv1alpha1.SourceStatus, 0, len(sources))
	for i, src := range sources {
		prefix, n := originPrefix(src), int32(0)
		if src.OCI != nil || src.Flux != nil {
			prefix = artifactOrigin(i, src)
		}
		for _, obj := range objects {
			if strings.HasPrefix(obj.Origin, prefix) {
				n++
			}
		}
		out = append(out, sourceStatus(src, n, at(g.Digests, i), text.Truncate(at(g.Revisions, i), maxRevision)))
	}
	return out
}

func sourceStatus(src applyv1alpha1.ClusterSource, objects int32, digest, revision string) applyv1alpha1.SourceStatus {
	switch {
	case src.Flux != nil:
		return applyv1alpha1.SourceStatus{Kind: string(src.Flux.Kind), Namespace: src.Namespace, Name: src.Flux.Name, Path: src.Path,
			Digest: digest, Revision: revision, Objects: ptr.To(objects)}
	case src.OCI != nil:
		return applyv1alpha1.SourceStatus{URL: src.OCI.URL, Path: src.Path, Digest: digest, Objects: ptr.To(objects)}
	}
	return applyv1alpha1.SourceStatus{Kind: string(src.Kind), Namespace: src.Namespace, Name: src.Name, Key: src.Key, Objects: ptr.To(objects)}
}

func at(values []string, i int) string {
	if i < len(values) {
		return values[i]
	}
	return ""
}

// emptiedSources names the sources that declared objects at the last reconcile
// (before) and declare none now: a ConfigMap emptied by mistake, a file
// gone. A source taken out of the set is not emptied.
func emptiedSources(before, now []applyv1alpha1.SourceStatus) []string {
	had := map[applyv1alpha1.SourceStatus]int32{}
	for _, s := range before {
		had[withoutCount(s)] = ptr.Deref(s.Objects, 0)
	}
	var out []string
	for _, s := range now {
		if n := had[withoutCount(s)]; n > 0 && ptr.Deref(s.Objects, 0) == 0 {
			name := statusName(s)
			out = append(out, fmt.Sprintf("%s (%d objects before)", name, n))
		}
	}
	return out
}

// withoutCount is the source s counts for: an oci or flux source is the
// same source whichever artifact it was read from.
func withoutCount(s applyv1alpha1.SourceStatus) applyv1alpha1.SourceStatus {
	s.Objects, s.Digest, s.Revision = nil, "", ""
	return s
}

// statusName names a source of status.sources as a person reads it.
func statusName(s applyv1alpha1.SourceStatus) string {
	if s.URL != "" {
		if s.Path != "" {
			return s.URL + " path " + s.Path
		}
		return s.URL
	}
	name := fmt.Sprintf("%s %s/%s", s.Kind, s.Namespace, s.Name)
	if s.Key != "" {
		name += " key " + s.Key
	}
	if s.Path != "" {
		name += " path " + s.Path
	}
	return name
}

// artifactName names the artifact s was read from: its revision, if it
// has one, and digest.
func artifactName(s applyv1alpha1.SourceStatus) string {
	if s.Revision != "" {
		return fmt.Sprintf("revision %s (%s)", s.Revision, s.Digest)
	}
	return s.Digest
}

// ArtifactChanges names the oci and flux sources whose digest differs from
// the one they had at the last reconcile (before), with both digests, and
// a flux source's revisions.
func ArtifactChanges(before, now []applyv1alpha1.SourceStatus) []string {
	had := map[applyv1alpha1.SourceStatus]applyv1alpha1.SourceStatus{}
	for _, s := range before {
		had[withoutCount(s)] = s
	}
	var out []string
	for _, s := range now {
		if s.Digest == "" {
			continue
		}
		switch was, ok := had[withoutCount(s)]; {
		case ok && was.Digest == s.Digest:
		case !ok || was.Digest == "":
			out = append(out, fmt.Sprintf("%s: %s", statusName(s), artifactName(s)))
		default:
			out = append(out, fmt.Sprintf("%s: %s (was %s)", statusName(s), artifactName(s), artifactName(was)))
		}
	}
	return out
}

// storedMembers counts the members status records, inline or in chunks.
func storedMembers(status *applyv1alpha1.ApplySetStatus) int {
	if status.MemberCount != nil {
		return int(*status.MemberCount)
	}
	return len(status.Members)
}

// RefuseEmpty stops a set whose inputs declare nothing while it has members,
// or one of whose sources declared objects and declares none now, unless
// spec.allowEmpty: an emptied source would otherwise prune what it held.
// status is the set's status as stored (its members, and what each source
// declared at the last reconcile); the reconciler and a preview both ask.
func RefuseEmpty(set applyv1alpha1.Set, status *applyv1alpha1.ApplySetStatus, objects []apply.Object,
	counts []applyv1alpha1.SourceStatus) error {
	if set.GetCommonSpec().AllowEmptyEnabled() || status == nil {
		return nil
	}
	if members := storedMembers(status); len(objects) == 0 && members > 0 {
		return fmt.Errorf("the set's inputs declare no objects, while it has %d members: a source emptied by mistake "+
			"would delete them all, so nothing was applied or pruned; fix the inputs, or set spec.allowEmpty: true to prune every member", members)
	}
	if emptied := emptiedSources(status.Sources, counts); len(emptied) > 0 {
		return fmt.Errorf("%s declared objects and now declare none: pruning would delete what they held, so nothing was "+
			"applied or pruned; fix the source, take it out of spec.sources, or set spec.allowEmpty: true", text.Summarize(emptied, 3))
	}
	return nil
}

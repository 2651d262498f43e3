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
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

func TestCountBySource(t *testing.T) {
	set := &applyv1alpha1.ApplySet{}
	set.Namespace = "shop"
	set.Spec.Sources = []applyv1alpha1.Source{
		{Kind: applyv1alpha1.SourceKindConfigMap, Name: "all"},
		{Kind: applyv1alpha1.SourceKindConfigMap, Name: "one", Key: "app.yaml"},
		{Kind: applyv1alpha1.SourceKindConfigMap, Name: "one", Key: "app.yaml.bak"},
		{Kind: applyv1alpha1.SourceKindSecret, Name: "all"},
	}
	origins := []string{"spec.resources[0]", "ConfigMap shop/all key a.yaml document 1", "ConfigMap shop/all key b.yaml document 2 item 3",
		"ConfigMap shop/one key app.yaml document 1", "ConfigMap shop/one key app.yaml.bak document 1", "ConfigMap shop/allx key a.yaml document 1"}
	objects := make([]apply.Object, 0, len(origins))
	for _, o := range origins {
		objects = append(objects, apply.Object{Input: apply.Input{Object: &unstructured.Unstructured{}, Origin: o}})
	}
	got := CountBySource(set, objects, Gathered{})
	want := []int32{2, 1, 1, 0}
	for i, s := range got {
		if ptr.Deref(s.Objects, -1) != want[i] || s.Namespace != "shop" {
			t.Errorf("source %d (%s %s key %q) = %v, want %d", i, s.Kind, s.Name, s.Key, ptr.Deref(s.Objects, -1), want[i])
		}
	}
}

func TestEmptied(t *testing.T) {
	src := func(name string, n int32) applyv1alpha1.SourceStatus {
		return applyv1alpha1.SourceStatus{Kind: string(applyv1alpha1.SourceKindConfigMap), Namespace: "shop", Name: name, Objects: ptr.To(n)}
	}
	tests := []struct {
		name        string
		before, now []applyv1alpha1.SourceStatus
		want        []string
	}{
		{name: "first reconcile", now: []applyv1alpha1.SourceStatus{src("a", 0)}},
		{name: "still declaring", before: []applyv1alpha1.SourceStatus{src("a", 3)}, now: []applyv1alpha1.SourceStatus{src("a", 1)}},
		{name: "emptied", before: []applyv1alpha1.SourceStatus{src("a", 3), src("b", 2)}, now: []applyv1alpha1.SourceStatus{src("a", 0), src("b", 2)},
			want: []string{"ConfigMap shop/a (3 objects before)"}},
		{name: "empty before and now", before: []applyv1alpha1.SourceStatus{src("a", 0)}, now: []applyv1alpha1.SourceStatus{src("a", 0)}},
		{name: "taken out of the set", before: []applyv1alpha1.SourceStatus{src("a", 3), src("b", 2)}, now: []applyv1alpha1.SourceStatus{src("b", 2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := emptiedSources(tt.before, tt.now); !slices.Equal(got, tt.want) {
				t.Errorf("emptiedSources = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRefuseEmpty(t *testing.T) {
	src := func(name string, n int32) applyv1alpha1.SourceStatus {
		return applyv1alpha1.SourceStatus{Kind: string(applyv1alpha1.SourceKindConfigMap), Namespace: "shop", Name: name, Objects: ptr.To(n)}
	}
	members := func(n int) []applyv1alpha1.Member { return make([]applyv1alpha1.Member, n) }
	one := []apply.Object{{Input: apply.Input{Object: &unstructured.Unstructured{}, Origin: "ConfigMap shop/b key a.yaml document 1"}}}
	tests := []struct {
		name       string
		allowEmpty bool
		status     *applyv1alpha1.ApplySetStatus
		objects    []apply.Object
		counts     []applyv1alpha1.SourceStatus
		wantErr    bool
	}{
		{name: "a set not stored yet", objects: nil},
		{name: "nothing declared, no members", status: &applyv1alpha1.ApplySetStatus{}},
		{name: "nothing declared, members", status: &applyv1alpha1.ApplySetStatus{Members: members(2)}, wantErr: true},
		{name: "nothing declared, members, allowEmpty", allowEmpty: true, status: &applyv1alpha1.ApplySetStatus{Members: members(2)}},
		{name: "a source emptied", status: &applyv1alpha1.ApplySetStatus{Members: members(3), Sources: []applyv1alpha1.SourceStatus{src("a", 2), src("b", 1)}},
			objects: one, counts: []applyv1alpha1.SourceStatus{src("a", 0), src("b", 1)}, wantErr: true},
		{name: "a source emptied, allowEmpty", allowEmpty: true,
			status:  &applyv1alpha1.ApplySetStatus{Members: members(3), Sources: []applyv1alpha1.SourceStatus{src("a", 2), src("b", 1)}},
			objects: one, counts: []applyv1alpha1.SourceStatus{src("a", 0), src("b", 1)}},
		{name: "every source still declaring", status: &applyv1alpha1.ApplySetStatus{Members: members(1), Sources: []applyv1alpha1.SourceStatus{src("b", 1)}},
			objects: one, counts: []applyv1alpha1.SourceStatus{src("b", 1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := &applyv1alpha1.ApplySet{}
			if tt.allowEmpty {
				set.Spec.AllowEmpty = ptr.To(true)
			}
			if err := RefuseEmpty(set, tt.status, tt.objects, tt.counts); (err != nil) != tt.wantErr {
				t.Errorf("RefuseEmpty = %v, want an error: %v", err, tt.wantErr)
			}
		})
	}
}

func TestAnOCISourceIsTheSameSourceWhicheverArtifactItRead(t *testing.T) {
	oci := func(digest string, n int32) applyv1alpha1.SourceStatus {
		return applyv1alpha1.SourceStatus{URL: "oci://registry.example.com/app", Path: "prod", Digest: digest, Objects: ptr.To(n)}
	}
	before := []applyv1alpha1.SourceStatus{oci("sha256:aa", 3)}
	if got := emptiedSources(before, []applyv1alpha1.SourceStatus{oci("sha256:bb", 0)}); len(got) != 1 ||
		got[0] != "oci://registry.example.com/app path prod (3 objects before)" {
		t.Errorf("an artifact that declares nothing after one that did: got %q", got)
	}
	if got := ArtifactChanges(before, []applyv1alpha1.SourceStatus{oci("sha256:bb", 3)}); len(got) != 1 ||
		got[0] != "oci://registry.example.com/app path prod: sha256:bb (was sha256:aa)" {
		t.Errorf("a new digest: got %q", got)
	}
	if got := ArtifactChanges(before, []applyv1alpha1.SourceStatus{oci("sha256:aa", 3)}); len(got) != 0 {
		t.Errorf("the same digest is no change: got %q", got)
	}
}

func TestAFluxSourceIsCountedAndNamedByItsObject(t *testing.T) {
	set := &applyv1alpha1.ApplySet{}
	set.Namespace = "shop"
	set.Spec.Sources = []applyv1alpha1.Source{
		{Kind: applyv1alpha1.SourceKindConfigMap, Name: "app"},
		{Flux: &applyv1alpha1.FluxSource{Kind: applyv1alpha1.FluxSourceGitRepository, Name: "app"}, Path: "prod"},
	}
	objects := []apply.Object{
		{Input: apply.Input{Object: &unstructured.Unstructured{}, Origin: "spec.sources[1] GitRepository shop/app prod/a.yaml document 1"}},
		{Input: apply.Input{Object: &unstructured.Unstructured{}, Origin: "spec.sources[1] GitRepository shop/app prod/a.yaml document 2"}},
	}
	got := CountBySource(set, objects, Gathered{Digests: []string{"", "sha256:bb"}, Revisions: []string{"", "main@sha1:2"}})
	want := applyv1alpha1.SourceStatus{Kind: "GitRepository", Namespace: "shop", Name: "app", Path: "prod", Digest: "sha256:bb",
		Revision: "main@sha1:2", Objects: ptr.To[int32](2)}
	if len(got) != 2 || ptr.Deref(got[0].Objects, -1) != 0 || withoutCount(got[1]) != withoutCount(want) || *got[1].Objects != 2 ||
		got[1].Digest != want.Digest || got[1].Revision != want.Revision {
		t.Fatalf("CountBySource = %+v", got)
	}
	before := want
	before.Digest, before.Revision = "sha256:aa", "main@sha1:1"
	if changes := ArtifactChanges([]applyv1alpha1.SourceStatus{before}, got); len(changes) != 1 || changes[0] !=
		"GitRepository shop/app path prod: revision main@sha1:2 (sha256:bb) (was revision main@sha1:1 (sha256:aa))" {
		t.Errorf("ArtifactChanges = %q", changes)
	}
	emptied := want
	emptied.Objects = ptr.To[int32](0)
	if names := emptiedSources([]applyv1alpha1.SourceStatus{before}, []applyv1alpha1.SourceStatus{emptied}); len(names) != 1 ||
		names[0] != "GitRepository shop/app path prod (2 objects before)" {
		t.Errorf("emptiedSources = %q", names)
	}
}

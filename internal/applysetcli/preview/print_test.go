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
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

func secret(data map[string]any) *unstructured.Unstructured {
	obj := map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s", "namespace": "ns"}}
	if data != nil {
		obj["data"] = data
	}
	return &unstructured.Unstructured{Object: obj}
}

func TestWriteDiffMasksSecrets(t *testing.T) {
	ref := apply.ObjectRef{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: "ns", Name: "s"}
	tests := []struct {
		name         string
		live, result *unstructured.Unstructured
		want         []string
		wantNot      []string
	}{{
		name:    "a changed value is marked on both sides, an equal one masked alike",
		live:    secret(map[string]any{"password": "b25l", "user": "YWRtaW4="}),
		result:  secret(map[string]any{"password": "dHdv", "user": "YWRtaW4="}),
		want:    []string{"-  password: '*** (before)'\n", "+  password: '*** (after)'\n", "   user: '***'\n"},
		wantNot: []string{"b25l", "dHdv", "YWRtaW4="},
	}, {
		name:    "a new Secret shows its keys, not its values",
		result:  secret(map[string]any{"token": "c2VjcmV0"}),
		want:    []string{"--- live/v1.Secret.ns.s\n", "+++ merged/v1.Secret.ns.s\n", "+  token: '***'\n"},
		wantNot: []string{"c2VjcmV0"},
	}, {
		name:    "a pruned Secret shows its keys, not its values",
		live:    secret(map[string]any{"token": "c2VjcmV0"}),
		want:    []string{"-  token: '***'\n"},
		wantNot: []string{"c2VjcmV0"},
	}, {
		name:    "a key that goes away is masked",
		live:    secret(map[string]any{"old": "b2xk", "kept": "aw=="}),
		result:  secret(map[string]any{"kept": "aw=="}),
		want:    []string{"-  old: '***'\n"},
		wantNot: []string{"b2xk", "aw=="},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := writeDiff(&b, ref, tt.live, tt.result); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("want %q in\n%s", w, b.String())
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(b.String(), w) {
					t.Errorf("the diff shows the secret value %q:\n%s", w, b.String())
				}
			}
		})
	}
}

func TestWriteDiffLeavesOutManagedFields(t *testing.T) {
	ref := apply.ObjectRef{GroupKind: schema.GroupKind{Group: "apps", Kind: "Deployment"}, Namespace: "ns", Name: "web"}
	obj := func(replicas int64, manager string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "web", "namespace": "ns", "managedFields": []any{map[string]any{"manager": manager}}},
			"spec":     map[string]any{"replicas": replicas}}}
	}
	var b strings.Builder
	if err := writeDiff(&b, ref, obj(1, "kubectl"), obj(1, "someone")); err != nil {
		t.Fatal(err)
	}
	if b.String() != "" {
		t.Errorf("objects that differ only in managed fields gave a diff:\n%s", b.String())
	}
	b.Reset()
	if err := writeDiff(&b, ref, obj(1, "kubectl"), obj(3, "kubectl")); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"--- live/apps.v1.Deployment.ns.web\n", "-  replicas: 1\n", "+  replicas: 3\n"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("want %q in\n%s", w, b.String())
		}
	}
}

func TestPrintDriftShowsWhatTheSetLeaves(t *testing.T) {
	ref := apply.ObjectRef{GroupKind: schema.GroupKind{Group: "apps", Kind: "Deployment"}, Namespace: "ns", Name: "web"}
	obj := func(replicas int64) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "web", "namespace": "ns"}, "spec": map[string]any{"replicas": replicas}}}
	}
	p := &Preview{Changes: apply.ChangeSet{DryRun: true,
		Changes:   []apply.Change{{Ref: ref, Action: apply.Unchanged, Live: obj(5), Preview: obj(2)}},
		DriftLeft: []apply.Conflict{{Ref: ref, Manager: "kubectl-scale", Fields: []string{".spec.replicas"}}}}}
	var b strings.Builder
	if err := p.printDrift(&b); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Deployment.apps ns/web: drift left in place (spec.driftPolicy Report): kubectl-scale changed .spec.replicas\n",
		"--- declared/apps.v1.Deployment.ns.web\n", "+++ live/apps.v1.Deployment.ns.web\n", "-  replicas: 2\n", "+  replicas: 5\n"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("want %q in\n%s", w, b.String())
		}
	}
	b.Reset()
	p.summarize(&b)
	if want := "0 to create, 0 to change, 1 unchanged, 1 with drift left in place; nothing was changed\n"; b.String() != want {
		t.Errorf("summary %q, want %q", b.String(), want)
	}
	if p.Err() != nil || p.Found() {
		t.Errorf("drift left in place is no difference of the diff, but the preview found one (error %v)", p.Err())
	}
}

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

package apply

import (
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestParseDependsOn(t *testing.T) {
	db := ObjectRef{GroupKind: schema.GroupKind{Group: "apps", Kind: "StatefulSet"}, Namespace: "prod", Name: "db"}
	creds := ObjectRef{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: "prod", Name: "creds"}
	crd := ObjectRef{GroupKind: schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}, Name: "widgets.example.com"}
	tests := []struct {
		value   string
		want    []ObjectRef
		wantErr string
	}{
		{value: "apps/namespaces/prod/StatefulSet/db", want: []ObjectRef{db}},
		{value: "/namespaces/prod/Secret/creds, apps/namespaces/prod/StatefulSet/db", want: []ObjectRef{creds, db}},
		{value: "apiextensions.k8s.io/CustomResourceDefinition/widgets.example.com", want: []ObjectRef{crd}},
		{value: "", wantErr: "entry 1"},
		{value: "apps/StatefulSet", wantErr: "is neither"},
		{value: "apps/namespaces//StatefulSet/db", wantErr: "names no kind, name or namespace"},
		{value: "apps/namespaces/prod/StatefulSet/db,", wantErr: "entry 2"},
	}
	for _, tt := range tests {
		got, err := ParseDependsOn(tt.value)
		switch {
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("ParseDependsOn(%q) = %v, %v; want an error saying %q", tt.value, got, err, tt.wantErr)
		case tt.wantErr == "" && (err != nil || !reflect.DeepEqual(got, tt.want)):
			t.Errorf("ParseDependsOn(%q) = %v, %v; want %v", tt.value, got, err, tt.want)
		}
	}
}

// Every value that parses reads back the same once written.
func FuzzParseDependsOn(f *testing.F) {
	for _, seed := range []string{"apps/namespaces/prod/StatefulSet/db", "/Namespace/team", "a/b/c,d/e/f", "/namespaces//x/y", ",,"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		refs, err := ParseDependsOn(value)
		if err != nil {
			return
		}
		again, err := ParseDependsOn(formatDependsOn(refs))
		if err != nil || !reflect.DeepEqual(again, refs) {
			t.Fatalf("%q: round trip gave %v, %v; want %v", value, again, err, refs)
		}
	})
}

func TestGroups(t *testing.T) {
	ref := func(group, kind, name string) ObjectRef {
		return ObjectRef{GroupKind: schema.GroupKind{Group: group, Kind: kind}, Namespace: "ns", Name: name}
	}
	ns := ObjectRef{GroupKind: namespaceGroupKind, Name: "ns"}
	sa, cm := ref("", "ServiceAccount", "sa"), ref("", "ConfigMap", "cm")
	db, web := ref("apps", "StatefulSet", "db"), ref("apps", "Deployment", "web")
	job := ref("batch", "Job", "migrate")
	outside := ref("", "Secret", "made-elsewhere")

	group, external, err := groups([]node{
		{ref: web, dependsOn: []ObjectRef{job}}, {ref: job, dependsOn: []ObjectRef{db, outside}},
		{ref: db}, {ref: cm}, {ref: sa}, {ref: ns},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[ObjectRef]int{ns: 0, sa: 1, cm: 1, db: 2, job: 3, web: 4}
	if !reflect.DeepEqual(group, want) {
		t.Errorf("groups = %v, want %v", group, want)
	}
	if !reflect.DeepEqual(external, []ObjectRef{outside}) {
		t.Errorf("external = %v, want %v", external, []ObjectRef{outside})
	}

	_, _, err = groups([]node{{ref: web, dependsOn: []ObjectRef{job}}, {ref: job, dependsOn: []ObjectRef{db}}, {ref: db, dependsOn: []ObjectRef{web}}})
	if err == nil || !strings.Contains(err.Error(), "in a circle") || !strings.Contains(err.Error(), "Deployment.apps ns/web") {
		t.Errorf("a circle gave %v", err)
	}
}

func TestDeleteOrder(t *testing.T) {
	newMember := func(gk schema.GroupKind, name, dependsOn string) member {
		obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
		ref := ObjectRef{GroupKind: gk, Namespace: "ns", Name: name}
		if gk == crdGroupKind || gk == namespaceGroupKind {
			obj.Namespace, ref.Namespace = "", ""
		}
		if dependsOn != "" {
			obj.Annotations = map[string]string{DependsOnAnnotation: dependsOn}
		}
		return member{ref: ref, obj: obj}
	}
	members := []member{
		newMember(crdGroupKind, "widgets.example.com", ""),
		newMember(namespaceGroupKind, "ns", ""),
		newMember(schema.GroupKind{Kind: "ConfigMap"}, "config", ""),
		newMember(schema.GroupKind{Group: "apps", Kind: "StatefulSet"}, "db", ""),
		newMember(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "web", "apps/namespaces/ns/StatefulSet/db"),
	}
	orderDeletes(members)
	var got []string
	for _, m := range members {
		got = append(got, m.ref.Name)
	}
	want := []string{"web", "db", "config", "widgets.example.com", "ns"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("deletes run in the order %v, want %v", got, want)
	}
}

// formatDependsOn writes refs as a depends-on annotation value, for the
// round trip of the parser.
func formatDependsOn(refs []ObjectRef) string {
	entries := make([]string, 0, len(refs))
	for _, r := range refs {
		if r.Namespace == "" {
			entries = append(entries, r.GroupKind.Group+"/"+r.GroupKind.Kind+"/"+r.Name)
			continue
		}
		entries = append(entries, r.GroupKind.Group+"/namespaces/"+r.Namespace+"/"+r.GroupKind.Kind+"/"+r.Name)
	}
	return strings.Join(entries, ",")
}

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

package applyset

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Every parser's output, written back and parsed again, is what it was.

func FuzzParseGroupKinds(f *testing.F) {
	for _, seed := range []string{"", "ConfigMap", "ConfigMap,Deployment.apps", "a,,b", ".x", "Kind.group.with.dots"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		gks, err := ParseGroupKinds(value)
		if err != nil {
			return
		}
		again, err := ParseGroupKinds(FormatGroupKinds(gks))
		if err != nil || !again.Equal(gks) {
			t.Fatalf("%q: round trip gave %v, %v; want %v", value, again, err, gks)
		}
	})
}

func FuzzParseGroupResources(f *testing.F) {
	for _, seed := range []string{"", "configmaps", "deployments.apps,secrets", "a,"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		grs, err := ParseGroupResources(value)
		if err != nil {
			return
		}
		for gr := range grs {
			if gr.Resource == "" {
				t.Fatalf("%q: parsed an empty resource", value)
			}
		}
	})
}

func FuzzParseNamespaces(f *testing.F) {
	for _, seed := range []string{"", "a", "team-a,team-b", "A", "a,,b"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		namespaces, err := ParseNamespaces(value)
		if err != nil {
			return
		}
		again, err := ParseNamespaces(FormatNamespaces(namespaces, ""))
		if err != nil || !again.Equal(namespaces) {
			t.Fatalf("%q: round trip gave %v, %v; want %v", value, again, err, namespaces)
		}
	})
}

func FuzzParseTooling(f *testing.F) {
	for _, seed := range []string{"kubectl/v1.37.1", "kpt", "a/b/c", "/v1", "x/", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		tooling, err := ParseTooling(value)
		if err != nil {
			return
		}
		again, err := ParseTooling(tooling.String())
		if err != nil || again != tooling {
			t.Fatalf("%q: round trip gave %+v, %v; want %+v", value, again, err, tooling)
		}
		if !tooling.CompatibleWith(again) {
			t.Fatalf("%q is not compatible with itself", value)
		}
	})
}

func FuzzParseParent(f *testing.F) {
	f.Add("my-set", "default", "applyset-x-v1", "kubectl/v1", "ConfigMap", "team-b")
	f.Fuzz(func(t *testing.T, name, namespace, id, tooling, kinds, namespaces string) {
		key := ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: namespace, Name: name}
		p := ParseParent(key, map[string]string{IDLabel: id}, map[string]string{
			ToolingAnnotation: tooling, GroupKindsAnnotation: kinds, AdditionalNamespacesAnnotation: namespaces,
		})
		if p.Trusted() != (id == key.ID()) {
			t.Fatalf("Trusted() = %v for id %q and key %v", p.Trusted(), id, key)
		}
		if p.Trusted() && !p.Scope.Contains(namespace) {
			t.Fatalf("the parent's own namespace %q is outside its scope", namespace)
		}
	})
}

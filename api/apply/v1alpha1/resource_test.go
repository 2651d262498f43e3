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

package v1alpha1

import (
	"encoding/json"
	"testing"

	. "github.com/onsi/gomega"
)

func TestResourceJSON(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		wantKind   string
		wantName   string
		wantLabels map[string]string
	}{
		{
			name:     "declared fields are read and the rest is kept",
			in:       `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"a","finalizers":["x"]},"spec":{"replicas":2}}`,
			wantKind: "Deployment", wantName: "web",
		},
		{
			name:     "labels are read",
			in:       `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"app":"web"}}}`,
			wantKind: "ConfigMap", wantName: "c", wantLabels: map[string]string{"app": "web"},
		},
		{
			name: "an object without metadata decodes to empty fields",
			in:   `{"apiVersion":"v1","kind":"","data":{}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			var r Resource
			g.Expect(json.Unmarshal([]byte(tt.in), &r)).To(Succeed())
			g.Expect(r.Kind).To(Equal(tt.wantKind))
			g.Expect(r.Metadata.Name).To(Equal(tt.wantName))
			g.Expect(r.Metadata.Labels).To(Equal(tt.wantLabels))

			out, err := json.Marshal(r)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(out).To(MatchJSON(tt.in), "the object must survive a round trip unchanged")

			copied := r.DeepCopy()
			out, err = json.Marshal(copied)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(out).To(MatchJSON(tt.in), "DeepCopy must keep the whole object")
		})
	}
}

func TestResourceWithoutRawMarshalsDeclaredFields(t *testing.T) {
	g := NewWithT(t)
	r := Resource{APIVersion: "v1", Kind: "ConfigMap", Metadata: ResourceMetadata{Name: "c"}}
	out, err := json.Marshal(r)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out).To(MatchJSON(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`))
}

func TestNewResourceAndObject(t *testing.T) {
	g := NewWithT(t)
	r, err := NewResource(map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": "s", "namespace": "n"},
		"stringData": map[string]any{"k": "v"},
	})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(r.Metadata.Namespace).To(Equal("n"))

	obj, err := r.Object()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(obj.GetKind()).To(Equal("Secret"))
	g.Expect(obj.Object).To(HaveKeyWithValue("stringData", HaveKeyWithValue("k", "v")))
}

func TestResourceRejectsNonObjects(t *testing.T) {
	for _, in := range []string{`[]`, `"text"`, `{"kind":3}`, `{"metadata":"x"}`} {
		var r Resource
		if err := json.Unmarshal([]byte(in), &r); err == nil {
			t.Errorf("decoding %s: want an error, got %+v", in, r)
		}
	}
}

// FuzzResourceJSON checks that whatever decodes as a Resource encodes back to
// the same JSON document.
func FuzzResourceJSON(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"b"}}`))
	f.Add([]byte(`{"metadata":{"labels":{"applyset.kubernetes.io/part-of":"x"}}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Resource
		if err := json.Unmarshal(data, &r); err != nil {
			return
		}
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("encoding a decoded resource: %v", err)
		}
		var again Resource
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("decoding %s again: %v", out, err)
		}
		if again.Kind != r.Kind || again.Metadata.Name != r.Metadata.Name || again.APIVersion != r.APIVersion {
			t.Fatalf("round trip changed the declared fields: %+v != %+v", again, r)
		}
	})
}

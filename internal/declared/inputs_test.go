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
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

func documents(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{apiVersion: v1, kind: ConfigMap, metadata: {name: c%d}}\n---\n", i)
	}
	return b.String()
}

func TestGatherLimits(t *testing.T) {
	inline, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "inline"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		inline  int
		keys    map[string]string
		limits  Limits
		want    int
		wantErr string
		// overBudget: the error is ErrBudgetExceeded.
		overBudget bool
	}{
		{name: "within both limits", inline: 1, keys: map[string]string{"a.yaml": documents(3)}, limits: Limits{Bytes: 1 << 20, Objects: 4}, want: 4},
		{name: "one object over, counting the inline ones", inline: 1, keys: map[string]string{"a.yaml": documents(4)},
			limits: Limits{Bytes: 1 << 20, Objects: 4}, wantErr: "key a.yaml: the set declares more than the limit of 4 objects"},
		{name: "the limit reached by an earlier key", keys: map[string]string{"a.yaml": documents(2), "b.yaml": documents(1)},
			limits: Limits{Bytes: 1 << 20, Objects: 2}, wantErr: "key b.yaml: the set declares more than the limit of 2 objects"},
		{name: "an empty key after the limit passes", keys: map[string]string{"a.yaml": documents(2), "b.yaml": "# nothing\n"},
			limits: Limits{Bytes: 1 << 20, Objects: 2}, want: 2},
		{name: "no object limit", keys: map[string]string{"a.yaml": documents(50)}, limits: Limits{Bytes: 1 << 20}, want: 50},
		{name: "the byte limit", keys: map[string]string{"a.yaml": documents(50)}, limits: Limits{Bytes: 100, Objects: 10},
			wantErr: "hold more than the limit of 100, decompressed"},
		{name: "a List's items count one by one", keys: map[string]string{"a.yaml": "{apiVersion: v1, kind: List, items: [" +
			strings.Repeat("{apiVersion: v1, kind: ConfigMap, metadata: {name: x}}, ", 5) + "]}"},
			limits: Limits{Bytes: 1 << 20, Objects: 4}, wantErr: "key a.yaml: the set declares more than the limit of 4 objects"},
		{name: "an object of many tiny maps", keys: map[string]string{"a.yaml": "{apiVersion: v1, kind: ConfigMap, metadata: {name: x}, data: {k: [" +
			strings.Repeat("{}, ", 200) + "]}}"}, limits: Limits{Bytes: 1 << 20, Objects: 2}, overBudget: true,
			wantErr: "key a.yaml: would decode to more than 400 YAML nodes (mappings, lists, keys and values), " +
				"counted before decoding, 200 for each object the set may declare"},
		{name: "nodes counted across keys", keys: map[string]string{"a.yaml": documents(1), "b.yaml": "{apiVersion: v1, kind: ConfigMap, " +
			"metadata: {name: x}, data: {k: [" + strings.Repeat("{}, ", 75) + "]}}"}, limits: Limits{Bytes: 1 << 20, Objects: 2},
			overBudget: true, wantErr: "key b.yaml: would decode to more than 400 YAML nodes"},
		{name: "within the nodes", keys: map[string]string{"a.yaml": documents(1), "b.yaml": "{apiVersion: v1, kind: ConfigMap, " +
			"metadata: {name: x}, data: {k: [" + strings.Repeat("{}, ", 60) + "]}}"}, limits: Limits{Bytes: 1 << 20, Objects: 2}, want: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			source := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "src"}, Data: tt.keys}
			reader := fake.NewClientBuilder().WithObjects(source).Build()
			set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "set"}}
			for range tt.inline {
				set.Spec.Resources = append(set.Spec.Resources, inline)
			}
			set.Spec.Sources = []applyv1alpha1.Source{{Kind: applyv1alpha1.SourceKindConfigMap, Name: "src"}}
			g, err := GatherWith(context.Background(), reader, set, tt.limits, nil)
			inputs := g.Inputs
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want an error saying %q, got %v", tt.wantErr, err)
				}
				if errors.Is(err, ErrBudgetExceeded) != tt.overBudget {
					t.Fatalf("errors.Is(%v, ErrBudgetExceeded) = %t, want %t", err, !tt.overBudget, tt.overBudget)
				}
				return
			}
			if err != nil || len(inputs) != tt.want {
				t.Fatalf("got %d inputs and %v, want %d", len(inputs), err, tt.want)
			}
		})
	}
}

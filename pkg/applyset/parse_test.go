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
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
)

// labelValuePattern is the API server's rule for label values.
var labelValuePattern = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)

func gk(group, kind string) schema.GroupKind { return schema.GroupKind{Group: group, Kind: kind} }

func TestParseGroupKinds(t *testing.T) {
	tests := []struct {
		value   string
		want    []schema.GroupKind
		wantErr string
	}{
		{value: "", want: nil},
		{value: "ConfigMap", want: []schema.GroupKind{gk("", "ConfigMap")}},
		{value: "ConfigMap,Deployment.apps,Widget.example.com", want: []schema.GroupKind{
			gk("", "ConfigMap"), gk("apps", "Deployment"), gk("example.com", "Widget")}},
		{value: "Deployment.apps,Deployment.apps", want: []schema.GroupKind{gk("apps", "Deployment")}},
		{value: "ConfigMap,,Secret", wantErr: `entry 2 of applyset.kubernetes.io/contains-group-kinds, ""`},
		{value: "ConfigMap, Secret", wantErr: `entry 2`},
		{value: ".apps", wantErr: `entry 1`},
		{value: "Deployment.Apps", wantErr: `entry 1`},
		{value: "configmaps", wantErr: `entry 1`},
		{value: "deployments.apps/v1", wantErr: `entry 1`},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			got, err := ParseGroupKinds(tt.value)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseGroupKinds(%q) error = %v, want one containing %q", tt.value, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseGroupKinds(%q): %v", tt.value, err)
			}
			if !got.Equal(sets.New(tt.want...)) {
				t.Errorf("ParseGroupKinds(%q) = %v, want %v", tt.value, got.UnsortedList(), tt.want)
			}
		})
	}
}

func TestFormatGroupKindsIsKubectls(t *testing.T) {
	// kubectl sorts the Kind.group spellings bytewise, so "." sorts before letters.
	got := FormatGroupKinds(sets.New(gk("apps", "Deployment"), gk("", "ConfigMap"), gk("example.com", "Widget"),
		gk("", "DeploymentX"), gk("batch", "Job")))
	want := "ConfigMap,Deployment.apps,DeploymentX,Job.batch,Widget.example.com"
	if got != want {
		t.Errorf("FormatGroupKinds = %q, want %q", got, want)
	}
	if got := FormatGroupKinds(sets.New[schema.GroupKind]()); got != "" {
		t.Errorf("FormatGroupKinds(empty) = %q, want empty", got)
	}
}

func TestParseGroupResources(t *testing.T) {
	got, err := ParseGroupResources("configmaps,deployments.apps")
	if err != nil {
		t.Fatal(err)
	}
	want := sets.New(schema.GroupResource{Resource: "configmaps"}, schema.GroupResource{Group: "apps", Resource: "deployments"})
	if !got.Equal(want) {
		t.Errorf("got %v, want %v", got.UnsortedList(), want.UnsortedList())
	}
	for _, bad := range []string{"ConfigMaps", "configmaps,", ".apps"} {
		if _, err := ParseGroupResources(bad); err == nil {
			t.Errorf("ParseGroupResources(%q): want an error", bad)
		}
	}
}

func TestNamespaces(t *testing.T) {
	got, err := ParseNamespaces("team-b,team-a,team-b")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(sets.New("team-a", "team-b")) {
		t.Errorf("ParseNamespaces = %v", sets.List(got))
	}
	if got := FormatNamespaces(sets.New("team-c", "team-a", "home"), "home"); got != "team-a,team-c" {
		t.Errorf("FormatNamespaces = %q, want the parent's own namespace left out and the rest sorted", got)
	}
	for _, bad := range []string{"Team-A", "a,,b", "a b", strings.Repeat("n", 64)} {
		if _, err := ParseNamespaces(bad); err == nil {
			t.Errorf("ParseNamespaces(%q): want an error", bad)
		}
	}
}

func TestTooling(t *testing.T) {
	tests := []struct {
		value       string
		want        Tooling
		wantErr     bool
		compatibles []string
		others      []string
	}{
		{value: "kubectl/v1.37.1", want: Tooling{Name: "kubectl", Version: "v1.37.1"},
			compatibles: []string{"kubectl/v1.30.0", "kubectl"}, others: []string{"kubectl-v1/x", "helm/v3"}},
		{value: "applyset-operator/v0.1.0", want: Tooling{Name: "applyset-operator", Version: "v0.1.0"},
			compatibles: []string{"applyset-operator/v9"}, others: []string{"applyset/operator"}},
		{value: "example.com/deployer/v2", want: Tooling{Name: "example.com/deployer", Version: "v2"},
			compatibles: []string{"example.com/deployer/v3"}, others: []string{"example.com/v2"}},
		{value: "kpt", want: Tooling{Name: "kpt"}},
		{value: "", wantErr: true},
		{value: "/v1", wantErr: true},
		{value: " /", wantErr: true},
		{value: "//", wantErr: true},
		{value: "kubectl/", wantErr: true},
		{value: "a//v1", wantErr: true},
		{value: "kubectl /v1", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			got, err := ParseTooling(tt.value)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ParseTooling(%q) = %+v, want an error", tt.value, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseTooling(%q) = %+v, %v; want %+v", tt.value, got, err, tt.want)
			}
			if got.String() != tt.value {
				t.Errorf("String() = %q, want %q", got.String(), tt.value)
			}
			for _, c := range tt.compatibles {
				other, _ := ParseTooling(c)
				if !got.CompatibleWith(other) {
					t.Errorf("%s should be compatible with %s", tt.value, c)
				}
			}
			for _, c := range tt.others {
				other, _ := ParseTooling(c)
				if got.CompatibleWith(other) {
					t.Errorf("%s should not be compatible with %s", tt.value, c)
				}
			}
		})
	}
}

func TestScope(t *testing.T) {
	namespaced := Scope{Namespace: "home", AdditionalNamespaces: sets.New("extra")}
	cluster := Scope{AdditionalNamespaces: sets.New("extra")}
	bare := Scope{}
	tests := []struct {
		scope     Scope
		namespace string
		want      bool
	}{
		{namespaced, "home", true},
		{namespaced, "extra", true},
		{namespaced, "", true},
		{namespaced, "elsewhere", false},
		{cluster, "", true},
		{cluster, "extra", true},
		{cluster, "home", false},
		{bare, "", true},
		{bare, "default", false},
	}
	for _, tt := range tests {
		if got := tt.scope.Contains(tt.namespace); got != tt.want {
			t.Errorf("%+v.Contains(%q) = %v, want %v", tt.scope, tt.namespace, got, tt.want)
		}
	}
	if got := namespaced.Namespaces(); strings.Join(got, ",") != "extra,home" {
		t.Errorf("Namespaces() = %v", got)
	}
}

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

package adopt

import (
	"strings"
	"testing"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
)

// TestFromSource reads --from as kubectl names types: singular or plural,
// bare or with the API group, in --from-namespace or the namespace in use.
func TestFromSource(t *testing.T) {
	c := &cli.Clients{Namespace: "shop"}
	tests := []struct {
		from, fromNamespace string
		want                string // the source's String, or "" for a refusal
	}{
		{from: "helm/web", want: "helm/web in namespace shop"},
		{from: "kustomizations.kustomize.toolkit.fluxcd.io/web", fromNamespace: "flux-system", want: "kustomization/web in namespace flux-system"},
		{from: "Application/web", fromNamespace: "argocd", want: "application/web in namespace argocd"},
		{from: "resourcegroup.kpt.dev/inventory", want: "resourcegroup/inventory in namespace shop"},
		{from: "inventory/inv", want: "inventory/inv in namespace shop"},
		{from: "kustomization.example.com/web"},
		{from: "helm"},
		{from: "chart/web"},
	}
	for _, tt := range tests {
		src, err := sourceFlags{from: tt.from, fromNamespace: tt.fromNamespace}.fromSource(c)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("--from %s read as %s, want a refusal", tt.from, src)
		case tt.want == "" && !strings.Contains(err.Error(), fromForms()):
			t.Errorf("--from %s: %v, want it to name what adopt reads", tt.from, err)
		case tt.want != "" && err != nil:
			t.Errorf("--from %s: %v", tt.from, err)
		case tt.want != "" && src.String() != tt.want:
			t.Errorf("--from %s read as %s, want %s", tt.from, src, tt.want)
		}
	}
}

// TestFromKindsNameEverySource keeps the help and the messages in step
// with the table: each kind of record is named in each.
func TestFromKindsNameEverySource(t *testing.T) {
	for _, k := range fromKinds {
		for what, text := range map[string]string{"messages": fromForms(), "--from's help": fromFlagHelp(), "adopt's help": sourcesHelp()} {
			if !strings.Contains(text, k.form()) {
				t.Errorf("%s do not name %s:\n%s", what, k.form(), text)
			}
		}
		if src := k.open(named{typ: k.typ, name: "x"}); src.String() != k.typ+"/x" {
			t.Errorf("a record of %s is named %s", k.typ, src)
		}
	}
}

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

package membership

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/sets"
)

func TestParseAppliers(t *testing.T) {
	base := NewAppliers(map[string][]string{"kubectl": {"kubectl"}})
	tests := []struct {
		name    string
		value   string
		base    Appliers
		want    map[string][]string
		wantErr string
	}{
		{name: "nothing added keeps the base", base: base, want: map[string][]string{"kubectl": {"kubectl"}}},
		{name: "an empty base trusts no one", base: NewAppliers(nil), want: map[string][]string{}},
		{name: "pairs add to the base", value: "kubectl=ci, helm=helm-applyset , helm=helm", base: base,
			want: map[string][]string{"kubectl": {"ci", "kubectl"}, "helm": {"helm", "helm-applyset"}}},
		{name: "blanks are ignored", value: " , ", base: base, want: map[string][]string{"kubectl": {"kubectl"}}},
		{name: "a pair without a manager", value: "helm=", base: base, wantErr: `"helm=" is not TOOLING=FIELD_MANAGER`},
		{name: "a bare name", value: "helm", base: base, wantErr: `"helm" is not TOOLING=FIELD_MANAGER`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAppliers(tt.value, tt.base)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for tooling, managers := range tt.want {
				if !got.Of(tooling).Equal(sets.New(managers...)) {
					t.Errorf("%s: got %v, want %v", tooling, sets.List(got.Of(tooling)), managers)
				}
			}
			if got.Of("nobody").Len() != 0 {
				t.Error("an unknown tooling is trusted")
			}
		})
	}
	if base.Of("kubectl").Has("ci") {
		t.Error("ParseAppliers changed its base")
	}
}

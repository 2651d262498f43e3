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

package parents

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/internal/membership"
)

func TestApplyGroups(t *testing.T) {
	crd := membership.Member{GroupKind: schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}, Name: "widgets.example.com"}
	cm := membership.Member{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "shop", Name: "config"}
	web := membership.Member{GroupKind: schema.GroupKind{Group: "apps", Kind: "Deployment"}, Namespace: "shop", Name: "web"}
	job := membership.Member{GroupKind: schema.GroupKind{Group: "batch", Kind: "Job"}, Namespace: "shop", Name: "migrate"}
	const onJob, onWeb = "batch/namespaces/shop/Job/migrate", "apps/namespaces/shop/Deployment/web"
	for _, tc := range []struct {
		name      string
		dependsOn []string // of crd, cm, web, job
		groups    []int
		deps      [][]string
		err       string
	}{
		{name: "by kind", dependsOn: []string{"", "", "", ""}, groups: []int{0, 1, 2, 2}, deps: [][]string{nil, nil, nil, nil}},
		{name: "a Deployment after its migration Job", dependsOn: []string{"", "", onJob, ""}, groups: []int{0, 1, 3, 2},
			deps: [][]string{nil, nil, {"Job.batch shop/migrate"}, nil}},
		{name: "a dependency outside the set orders nothing", dependsOn: []string{"", "/namespaces/other/Secret/creds", "", ""},
			groups: []int{0, 1, 2, 2}, deps: [][]string{nil, nil, nil, nil}},
		{name: "a circle groups by kind", dependsOn: []string{"", "", onJob, onWeb}, groups: []int{0, 1, 2, 2},
			deps: [][]string{nil, nil, nil, nil}, err: "circle"},
		{name: "an annotation the engine refuses groups by kind", dependsOn: []string{"", "", "nonsense", ""}, groups: []int{0, 1, 2, 2},
			deps: [][]string{nil, nil, nil, nil}, err: "is neither"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			members := []membership.Member{crd, cm, web, job}
			out := make([]MemberHealth, len(members))
			for i := range out {
				out[i].dependsOn = tc.dependsOn[i]
			}
			err := applyGroups(members, out)
			if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want one saying %q", err, tc.err)
			}
			for i, m := range out {
				if m.Group != tc.groups[i] {
					t.Errorf("%s: group %d, want %d", members[i].Name, m.Group, tc.groups[i])
				}
				if len(m.DependsOn) != len(tc.deps[i]) || (len(m.DependsOn) > 0 && m.DependsOn[0] != tc.deps[i][0]) {
					t.Errorf("%s: depends on %v, want %v", members[i].Name, m.DependsOn, tc.deps[i])
				}
			}
		})
	}
}

// TestApplyGroupsOfManyOfAKind: members without an annotation take their
// kind's group, whether or not another names them, beside those with one.
func TestApplyGroupsOfManyOfAKind(t *testing.T) {
	member := func(group, kind, name string) membership.Member {
		return membership.Member{GroupKind: schema.GroupKind{Group: group, Kind: kind}, Namespace: "shop", Name: name}
	}
	members := []membership.Member{
		member("", "ConfigMap", "cm0"), member("", "ConfigMap", "cm1"), member("", "ConfigMap", "cm2"),
		member("batch", "Job", "j0"), member("batch", "Job", "j1"), member("apps", "Deployment", "web"), member("", "ConfigMap", "cm3"),
	}
	out := make([]MemberHealth, len(members))
	out[1].dependsOn = "batch/namespaces/shop/Job/j0" // cm1 after j0
	out[4].dependsOn = "/namespaces/shop/ConfigMap/cm2"
	if err := applyGroups(members, out); err != nil {
		t.Fatal(err)
	}
	want := []int{1, 3, 1, 2, 2, 2, 1}
	for i, m := range out {
		if m.Group != want[i] {
			t.Errorf("%s: group %d, want %d", members[i].Name, m.Group, want[i])
		}
	}
	if got := out[4].DependsOn; len(got) != 1 || got[0] != "ConfigMap shop/cm2" {
		t.Errorf("j1 depends on %v, want ConfigMap shop/cm2", got)
	}
}

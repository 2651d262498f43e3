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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

func TestPlanDigest(t *testing.T) {
	a := apply.ObjectRef{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "team", Name: "a"}
	b := apply.ObjectRef{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "team", Name: "b"}
	base := func() (*applyv1alpha1.ApplySet, Approvable) {
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web"}}
		return set, Approvable{What: ApproveChanges, Writes: apply.Intent{a: "body-a", b: "body-b"},
			Deletes: map[apply.ObjectRef]types.UID{b: "uid-b"}}
	}
	set, plan := base()
	want := PlanDigest(set, plan)
	if len(want) != len("sha256:")+64 {
		t.Fatalf("PlanDigest = %q, want sha256:<64 hex>", want)
	}
	changes := []struct {
		name   string
		change func(*applyv1alpha1.ApplySet, *Approvable)
		same   bool
	}{
		{"nothing", func(*applyv1alpha1.ApplySet, *Approvable) {}, true},
		{"the status, but for the sequence", func(s *applyv1alpha1.ApplySet, _ *Approvable) {
			s.Status.Plan = &applyv1alpha1.Plan{DryRun: ptr.To(true)}
			s.ResourceVersion = "42"
		}, true},
		{"a request body", func(_ *applyv1alpha1.ApplySet, p *Approvable) { p.Writes[a] = "body-a2" }, false},
		{"a write more", func(_ *applyv1alpha1.ApplySet, p *Approvable) {
			p.Writes[apply.ObjectRef{GroupKind: a.GroupKind, Namespace: "team", Name: "c"}] = "body-c"
		}, false},
		{"the UID of a delete", func(_ *applyv1alpha1.ApplySet, p *Approvable) { p.Deletes[b] = "uid-b2" }, false},
		{"what is approved", func(_ *applyv1alpha1.ApplySet, p *Approvable) { p.What = ApproveDeletes }, false},
		{"an approval spent", func(s *applyv1alpha1.ApplySet, _ *Approvable) {
			s.Status.Approval = &applyv1alpha1.ApprovalStatus{Sequence: ptr.To[int64](1)}
		}, false},
		{"force", func(s *applyv1alpha1.ApplySet, _ *Approvable) { s.Spec.Force = ptr.To(true) }, false},
		{"prune", func(s *applyv1alpha1.ApplySet, _ *Approvable) { s.Spec.Prune = ptr.To(false) }, false},
		{"the identity", func(s *applyv1alpha1.ApplySet, _ *Approvable) { s.Spec.ServiceAccountName = "deployer" }, false},
		{"the namespaces", func(s *applyv1alpha1.ApplySet, _ *Approvable) { s.Spec.AdditionalNamespaces = []string{"other"} }, false},
		{"the deletion policy", func(s *applyv1alpha1.ApplySet, _ *Approvable) {
			s.Spec.DeletionPolicy = applyv1alpha1.DeletionPolicyOrphan
		}, false},
	}
	for _, tt := range changes {
		t.Run(tt.name, func(t *testing.T) {
			set, plan := base()
			tt.change(set, &plan)
			if got := PlanDigest(set, plan); (got == want) != tt.same {
				t.Errorf("after changing %s the digest is %q, before %q; want same: %v", tt.name, got, want, tt.same)
			}
		})
	}
}

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

package inventory

import (
	"encoding/json"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// largestSet is the most objects a set may declare (declared.DefaultLimits).
const largestSet = 5000

// BenchmarkInventoryOfLargestSet measures what keeping the inventory costs
// the largest set: the bytes status.members adds to the set (etcd takes an
// object of up to 1.5 MiB), and the time to record a reconcile and prove
// every listed object.
func BenchmarkInventoryOfLargestSet(b *testing.B) {
	applied := make([]apply.Change, 0, largestSet)
	listed := make(map[apply.ObjectRef]types.UID, largestSet)
	objs := make(map[apply.ObjectRef]*metav1.PartialObjectMetadata, largestSet)
	for i := range largestSet {
		ref := apply.ObjectRef{GroupKind: schema.GroupKind{Group: "apps", Kind: "Deployment"},
			Namespace: fmt.Sprintf("team-%02d", i%50), Name: fmt.Sprintf("workload-%04d", i)}
		uid := types.UID(fmt.Sprintf("6f1c2a9e-0b7d-4c3e-9a51-%012d", i))
		obj := &unstructured.Unstructured{}
		obj.SetUID(uid)
		applied = append(applied, apply.Change{Ref: ref, Action: apply.Unchanged, Object: obj})
		listed[ref] = uid
		objs[ref] = &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{UID: uid}}
	}
	inv := FromStatus(nil).Next(Observed{Applied: applied})
	raw, err := json.Marshal(inv.Status())
	if err != nil {
		b.Fatal(err)
	}

	b.ResetTimer()
	for b.Loop() {
		next := FromStatus(inv.Status()).Next(Observed{Listed: listed, Applied: applied})
		proof := next.Proof("applyset-operator")
		for ref, obj := range objs {
			if !proof(ref, obj) {
				b.Fatalf("%s not proven", ref)
			}
		}
	}
	b.ReportMetric(float64(len(raw)), "status-bytes")
	b.ReportMetric(float64(len(raw))/largestSet, "bytes/member")
}

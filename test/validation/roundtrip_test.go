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

package validation

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// The defaults the API server fills in are written as the Go types write
// them back: a program that reads a set and updates only its metadata
// leaves its spec, and so its generation, as they were. A default of "10m"
// came back as "10m0s", a new generation, and a reconcile of a spec that
// had not changed.
var _ = Describe("A set's defaults", func() {
	for _, set := range []applyv1alpha1.Set{
		&applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: home, Name: "defaults"}},
		&applyv1alpha1.ClusterApplySet{ObjectMeta: metav1.ObjectMeta{Name: "defaults"}},
	} {
		It("survive a Go client's update of the metadata of a "+fmtKind(set), func(ctx context.Context) {
			Expect(k8sClient.Create(ctx, set)).To(Succeed())
			DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, set)).To(Succeed()) })
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			generation := set.GetGeneration()
			set.SetAnnotations(map[string]string{"example.com/note": "edited"})
			Expect(k8sClient.Update(ctx, set)).To(Succeed())
			Expect(set.GetGeneration()).To(Equal(generation), "an update of the metadata changed the spec")
		})
	}
})

// fmtKind names the Go type of set, whose TypeMeta is empty before a create.
func fmtKind(set applyv1alpha1.Set) string {
	if _, ok := set.(*applyv1alpha1.ClusterApplySet); ok {
		return "ClusterApplySet"
	}
	return "ApplySet"
}

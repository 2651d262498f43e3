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

package applysets

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// A reconcile may read a set from a cache that has not seen the operator's
// own last write. Its writes to the set carry the resourceVersion it read,
// so the API server refuses them, and the reconcile runs again on the set
// as it is: a stale read never overwrites the record of members or hints.
var _ = Describe("Writes to a set read stale", func() {
	It("are refused, and accepted once the set is read again", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "stale")
		set.Spec.Suspend = ptr.To(true)
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReconciling)).Should(HaveField("Reason", applyv1alpha1.ReasonSuspended))

		r := &Reconciler{client: k8sClient, scheme: k8sClient.Scheme(), newSet: func() applyv1alpha1.Set { return &applyv1alpha1.ApplySet{} },
			groupKind: applyv1alpha1.GroupVersion.WithKind("ApplySet").GroupKind(), opts: Options{ToolingVersion: "v0.1.0"}}
		stale := &applyv1alpha1.ApplySet{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), stale)).To(Succeed())
		By("another write moving the set on")
		moved := stale.DeepCopy()
		moved.Labels = map[string]string{"team": "a"}
		Expect(k8sClient.Update(ctx, moved)).To(Succeed())

		hints := declared.Hints{Kinds: sets.New(schema.GroupKind{Kind: "ConfigMap"}), Namespaces: sets.New[string]()}
		err := r.writeParent(ctx, stale, hints)
		Expect(err).To(MatchError(errStaleSet))
		before := stale.Status.DeepCopy()
		stale.Status.Members = []applyv1alpha1.Member{{ObjectReference: applyv1alpha1.ObjectReference{Kind: "ConfigMap", Name: "x"}}}
		Expect(apierrors.IsConflict(r.writeStatusLocked(ctx, stale, before))).To(BeTrue(), "a status write on a stale read was accepted")

		live := &applyv1alpha1.ApplySet{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), live)).To(Succeed())
		Expect(live.Annotations).NotTo(HaveKey(applyset.GroupKindsAnnotation), "hints were written on a stale read")
		Expect(live.Status.Members).To(BeEmpty(), "members were written on a stale read")

		By("reading the set again")
		Expect(r.writeParent(ctx, live, hints)).To(Succeed())
		before = live.Status.DeepCopy()
		live.Status.Members = []applyv1alpha1.Member{{ObjectReference: applyv1alpha1.ObjectReference{Kind: "ConfigMap", Name: "x"}}}
		Expect(r.writeStatusLocked(ctx, live, before)).To(Succeed(), "the status write after the hints' was refused: the set did not take their resourceVersion")
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), live)).To(Succeed())
		Expect(live.Annotations).To(HaveKeyWithValue(applyset.GroupKindsAnnotation, "ConfigMap"))
		Expect(live.Status.Members).To(HaveLen(1))
		Expect(live.Labels).To(HaveKeyWithValue("team", "a"))
	})
})

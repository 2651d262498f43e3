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

package reliability

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// While a set prunes again and again, writers put its part-of label on
// objects it never applied, every way a label gets there: kubectl label (an
// update), a controller copying its parent's labels (an apply under its own
// field manager), and a forger applying under the operator's own field
// manager name. None of those objects may be deleted, by prune or by the
// set's deletion. RELIABILITY_WINDOW sets how long they write.
var _ = Describe("Label writers", Ordered, func() {
	BeforeAll(func() { env.StartManager(setupOperator) })

	It("never get an object deleted that the set did not apply", func(ctx context.Context) {
		window := time.Duration(envInt("RELIABILITY_WINDOW", 10)) * time.Second
		const n, bystanders = 20, 30
		seed := uint64(GinkgoRandomSeed())
		ns := tenantNamespace(ctx)
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "set"}}
		set.Spec.Resources = configMaps(n, "v")
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(ready(ctx, set)).Should(BeTrue())
		id := set.Status.ApplySetID

		uids := map[objectRef]types.UID{}
		for i := range bystanders {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("b%d", i)}, Data: map[string]string{"k": "theirs"}}
			Expect(k8sClient.Create(ctx, cm)).To(Succeed())
			uids[objectRef{kind: memberKinds[0], namespace: ns, name: cm.Name}] = cm.UID
		}

		writeCtx, stop := context.WithTimeout(ctx, window)
		defer stop()
		var (
			wg     sync.WaitGroup
			writes [3]int
		)
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, 1))
			for writeCtx.Err() == nil {
				style := rng.IntN(len(writes))
				if labelBystander(writeCtx, ns, fmt.Sprintf("b%d", rng.IntN(bystanders)), id, style) == nil {
					writes[style]++
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
		rng := rand.New(rand.NewPCG(seed, 2))
		prunes := 0
		for writeCtx.Err() == nil {
			keep := n/2 + rng.IntN(n/2+1)
			Expect(updateResources(ctx, set, configMaps(keep, "v"))).To(Succeed())
			Eventually(ready(ctx, set)).Should(BeTrue())
			prunes++
		}
		wg.Wait()

		Expect(updateResources(ctx, set, configMaps(n, "v"))).To(Succeed())
		Eventually(ready(ctx, set)).Should(BeTrue())
		lostMembers, wrongBeforeDelete := lostOf(ctx, []*applyv1alpha1.ApplySet{set}, n, "v"), gone(ctx, uids)
		foreign := int32(0)
		if set.Status.ForeignMembers != nil {
			foreign = set.Status.ForeignMembers.Count
		}

		Expect(k8sClient.Delete(ctx, set)).To(Succeed())
		Eventually(func() bool { return apierrors.IsNotFound(k8sClient.Get(ctx, keyOf(set), set)) }).
			Should(BeTrue(), "the set was never deleted")
		wrong := gone(ctx, uids)
		AddReportEntry("label writers", fmt.Sprintf("%s of writes (%d kubectl label, %d copying controller, %d forged under %s) "+
			"on %d objects during %d prunes, then the set deleted: %d wrong deletions, %d lost members, %d foreign objects reported",
			window, writes[0], writes[1], writes[2], identity.MembersFieldManager, bystanders, prunes, wrong, lostMembers, foreign))
		Expect(wrongBeforeDelete).To(BeZero(), "a prune deleted objects the set never applied")
		Expect(wrong).To(BeZero(), "deleting the set deleted objects it never applied")
		Expect(lostMembers).To(BeZero())
		Expect(writes[0]+writes[1]+writes[2]).To(BeNumerically(">", 0), "no label was written: the scenario proved nothing")
		Expect(lostOf(ctx, []*applyv1alpha1.ApplySet{set}, n, "v")).To(Equal(n), "deleting the set kept its members")
	})
})

// labelBystander puts the part-of label of id on a ConfigMap the set did not
// apply, in one of three ways: 0 kubectl label, 1 a controller's apply,
// 2 an apply forged under the operator's field manager.
func labelBystander(ctx context.Context, ns, name, id string, style int) error {
	if style == 0 {
		cm := &corev1.ConfigMap{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
			return err
		}
		cm.Labels = map[string]string{applyset.PartOfLabel: id}
		return k8sClient.Update(ctx, cm, client.FieldOwner("kubectl-label"))
	}
	manager := "copying-controller"
	if style == 2 {
		manager = identity.MembersFieldManager
	}
	cm := &unstructured.Unstructured{}
	cm.SetAPIVersion("v1")
	cm.SetKind("ConfigMap")
	cm.SetNamespace(ns)
	cm.SetName(name)
	cm.SetLabels(map[string]string{applyset.PartOfLabel: id})
	return k8sClient.Apply(ctx, client.ApplyConfigurationFromUnstructured(cm), client.FieldOwner(manager))
}

// updateResources sets the set's inline resources, retrying on conflicts.
func updateResources(ctx context.Context, set *applyv1alpha1.ApplySet, resources []applyv1alpha1.Resource) error {
	for {
		if err := k8sClient.Get(ctx, keyOf(set), set); err != nil {
			return err
		}
		set.Spec.Resources = resources
		err := k8sClient.Update(ctx, set)
		if err == nil || !apierrors.IsConflict(err) {
			return err
		}
	}
}

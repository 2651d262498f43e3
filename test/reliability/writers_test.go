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
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// Two other writers work on a set's members for a while: an applier that
// takes a declared field with force, and an updater that changes another
// declared field as an autoscaler would. The operator must not fight the
// applier at all (it reports the conflict), may take the updater's change
// back at most once per interval (it is drift), and leaves both alone where
// spec.ignoreFields says so. RELIABILITY_WINDOW sets how long they write.
var _ = Describe("Conflicting writers", Ordered, func() {
	BeforeAll(func() { env.StartManager(setupOperator) })

	It("settle without a fight: no write against an applier, drift taken back at most once per interval", func(ctx context.Context) {
		window := time.Duration(envInt("RELIABILITY_WINDOW", 10)) * time.Second
		const interval = 2 * time.Second
		fought, calm := tenantNamespace(ctx), tenantNamespace(ctx)
		for _, ns := range []string{fought, calm} {
			set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "set"}}
			set.Spec.Interval = &metav1.Duration{Duration: interval}
			for i := range 6 {
				r, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
					"metadata": map[string]any{"name": fmt.Sprintf("c%d", i)}, "data": map[string]any{"k": "declared"}})
				Expect(err).NotTo(HaveOccurred())
				set.Spec.Resources = append(set.Spec.Resources, r)
			}
			if ns == calm {
				set.Spec.IgnoreFields = []applyv1alpha1.IgnoreFields{{Kind: "ConfigMap", Paths: []string{".data.k"}}}
			}
			Expect(k8sClient.Create(ctx, set)).To(Succeed())
			Eventually(ready(ctx, set)).Should(BeTrue())
		}

		takebacks := map[string]map[string]int{fought: {}, calm: {}}
		var mu sync.Mutex
		cs, err := kubernetes.NewForConfig(env.Config)
		Expect(err).NotTo(HaveOccurred())
		watchCtx, stopWatching := context.WithCancel(ctx)
		var wg sync.WaitGroup
		for _, ns := range []string{fought, calm} {
			w, err := cs.CoreV1().ConfigMaps(ns).Watch(watchCtx, metav1.ListOptions{})
			Expect(err).NotTo(HaveOccurred())
			wg.Go(func() {
				last := map[string]string{}
				for e := range w.ResultChan() {
					cm, ok := e.Object.(*corev1.ConfigMap)
					if !ok || e.Type != watch.Modified {
						continue
					}
					if cm.Data["k"] == "declared" && last[cm.Name] != "" && last[cm.Name] != "declared" {
						mu.Lock()
						takebacks[ns][cm.Name]++
						mu.Unlock()
					}
					last[cm.Name] = cm.Data["k"]
				}
			})
			go func() { <-watchCtx.Done(); w.Stop() }()
		}

		By(fmt.Sprintf("writing for %s: c0-c2 applied with force by rival, c3-c5 updated by an autoscaler", window))
		deadline := time.Now().Add(window)
		for n := 0; time.Now().Before(deadline); n++ {
			for _, ns := range []string{fought, calm} {
				for i := range 3 {
					cm := applycorev1.ConfigMap(fmt.Sprintf("c%d", i), ns).WithData(map[string]string{"k": "rival"})
					_, err := cs.CoreV1().ConfigMaps(ns).Apply(ctx, cm, metav1.ApplyOptions{FieldManager: "rival", Force: true})
					Expect(err).NotTo(HaveOccurred())
				}
				for i := 3; i < 6; i++ {
					cm := &corev1.ConfigMap{}
					Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: fmt.Sprintf("c%d", i)}, cm)).To(Succeed())
					base := cm.DeepCopy()
					cm.Data["k"] = fmt.Sprintf("scaled-%d", n)
					Expect(k8sClient.Patch(ctx, cm, client.MergeFrom(base), client.FieldOwner("autoscaler"))).To(Succeed())
				}
			}
			time.Sleep(200 * time.Millisecond)
		}
		stopWatching()
		wg.Wait()

		mu.Lock()
		defer mu.Unlock()
		perInterval := int(window/interval) + 1
		AddReportEntry("conflicting writers", fmt.Sprintf("window %s, interval %s: take-backs in the fought set %v, in the calm set %v",
			window, interval, takebacks[fought], takebacks[calm]))
		for i := range 3 {
			Expect(takebacks[fought][fmt.Sprintf("c%d", i)]).To(BeZero(), "the operator wrote against an applier's forced field")
		}
		for i := 3; i < 6; i++ {
			name := fmt.Sprintf("c%d", i)
			Expect(takebacks[fought][name]).To(BeNumerically("<=", perInterval), "drift on %s taken back more than once per interval", name)
		}
		Expect(takebacks[calm]).To(BeEmpty(), "the operator took back a field spec.ignoreFields leaves to others")

		By("reporting the applier's fields as a conflict, naming it")
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: fought, Name: "set"}}
		Eventually(func() *metav1.Condition {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			return apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
		}).Should(SatisfyAll(HaveField("Reason", applyv1alpha1.ReasonConflict), HaveField("Message", ContainSubstring("rival"))))
	})
})

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
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// Parents written by kubectl come and go while the parent reconciler works:
// RELIABILITY_PARENTS parents are created over RELIABILITY_CHURN seconds, each
// with a member its hint omits, and every tenth is deleted again. Every
// parent that stays must get its finding; the lag from create to finding is
// reported as p50 and p99.
var _ = Describe("Parents churned", Ordered, func() {
	BeforeAll(func() { env.StartManager(setupOperator) })

	It("judges every parent that stays, and reports the lag", func(ctx context.Context) {
		n, window := envInt("RELIABILITY_PARENTS", 200), time.Duration(envInt("RELIABILITY_CHURN", 10))*time.Second
		ns := tenantNamespace(ctx)
		cs, err := kubernetes.NewForConfig(env.Config)
		Expect(err).NotTo(HaveOccurred())

		var mu sync.Mutex
		created, judged := map[string]time.Time{}, map[string]time.Time{}
		w, err := cs.EventsV1().Events(ns).Watch(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()
		go func() {
			for e := range w.ResultChan() {
				ev, ok := e.Object.(*eventsv1.Event)
				if !ok || ev.Reason != membership.ReasonHintIncomplete {
					continue
				}
				mu.Lock()
				if _, seen := judged[ev.Regarding.Name]; !seen {
					judged[ev.Regarding.Name] = time.Now()
				}
				mu.Unlock()
			}
		}()

		deleted := map[string]bool{}
		start := time.Now()
		for i := range n {
			time.Sleep(time.Until(start.Add(window * time.Duration(i) / time.Duration(n))))
			name := fmt.Sprintf("p%d", i)
			id := applyset.ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: ns, Name: name}.ID()
			Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
				Labels: map[string]string{applyset.PartOfLabel: id}}})).To(Succeed())
			Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
				Labels:      map[string]string{applyset.IDLabel: id},
				Annotations: map[string]string{applyset.ToolingAnnotation: "kubectl/v1.37.1", applyset.GroupKindsAnnotation: "Secret"}}})).To(Succeed())
			mu.Lock()
			created[name] = time.Now()
			mu.Unlock()
			if i%10 == 9 {
				old := fmt.Sprintf("p%d", i-5)
				Expect(k8sClient.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: old}})).To(Succeed())
				deleted[old] = true
			}
		}
		Eventually(func() []string {
			mu.Lock()
			defer mu.Unlock()
			var missing []string
			for name := range created {
				if _, ok := judged[name]; !ok && !deleted[name] {
					missing = append(missing, name)
				}
			}
			return missing
		}).WithTimeout(2*time.Minute).Should(BeEmpty(), "parents never judged")

		mu.Lock()
		defer mu.Unlock()
		var lags []time.Duration
		for name, at := range judged {
			if c, ok := created[name]; ok && !deleted[name] {
				lags = append(lags, at.Sub(c))
			}
		}
		slices.Sort(lags)
		AddReportEntry(fmt.Sprintf("parents churned: %d over %s", n, window), fmt.Sprintf(
			"%d judged; lag from create to finding p50 %s, p99 %s, max %s", len(lags),
			lags[len(lags)/2].Round(time.Millisecond), lags[len(lags)*99/100].Round(time.Millisecond), lags[len(lags)-1].Round(time.Millisecond)))
	})
})

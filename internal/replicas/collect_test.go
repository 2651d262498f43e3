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

package replicas

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// shortTiming collects a Lease after 3 s unchanged.
var shortTiming = Timing{LeaseDuration: time.Second, RenewDeadline: 600 * time.Millisecond,
	RetryPeriod: 100 * time.Millisecond, Margin: 300 * time.Millisecond, StaleAfter: 3 * time.Second}

var _ = Describe("collecting stale replica Leases", func() {
	var ns string
	BeforeEach(func(ctx context.Context) {
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "replicas-"}}
		Expect(k8sClient.Create(ctx, n)).To(Succeed())
		ns = n.Name
	})

	It("deletes released and unrenewed Leases once unchanged for StaleAfter, never a renewed one or its own",
		func(ctx context.Context) {
			createLease(ctx, ns, "released", "", 3)
			createLease(ctx, ns, "crashed", "crashed", 2)
			renewed := createLease(ctx, ns, "renewed", "renewed", 1)
			renewing, stopRenewing := context.WithCancel(context.WithoutCancel(ctx))
			DeferCleanup(stopRenewing)
			go func() {
				defer GinkgoRecover()
				for renewing.Err() == nil {
					select {
					case <-renewing.Done():
					case <-time.After(shortTiming.StaleAfter / 3):
						renewed.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
						if err := k8sClient.Update(renewing, renewed); renewing.Err() == nil {
							Expect(err).NotTo(HaveOccurred())
						}
					}
				}
			}()
			started := time.Now()
			m := run(ctx, &Roster{Reader: k8sClient, Writer: k8sClient, Namespace: ns, Replica: "self", Timing: shortTiming})

			By("the released and the unrenewed Lease go, no sooner than StaleAfter")
			for _, name := range []string{"released", "crashed"} {
				Eventually(func() bool { return gone(ctx, ns, name) }).WithPolling(50 * time.Millisecond).Should(BeTrue())
				Expect(time.Since(started)).To(BeNumerically(">=", shortTiming.StaleAfter), name)
			}
			By("the renewed Lease and the replica's own stay")
			Consistently(func() bool { return gone(ctx, ns, "renewed") || gone(ctx, ns, "self") }).
				WithTimeout(shortTiming.StaleAfter + time.Second).Should(BeFalse())

			By("a replica whose own Lease is deleted ends its term and creates a new one")
			own := &coordinationv1.Lease{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: leasePrefix + "self"}, own)).To(Succeed())
			Expect(k8sClient.Delete(ctx, own)).To(Succeed())
			Eventually(func(g Gomega) {
				again := &coordinationv1.Lease{}
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(own), again)).To(Succeed())
				g.Expect(again.UID).NotTo(Equal(own.UID))
				g.Expect(*again.Spec.LeaseTransitions).To(BeNumerically(">", *own.Spec.LeaseTransitions))
				g.Expect(m.View().Self.Term).To(BeNumerically("==", *again.Spec.LeaseTransitions))
			}).Should(Succeed())
		})

	It("deletes only the version it saw, and only while it holds a term", func(ctx context.Context) {
		createLease(ctx, ns, "self", "self", 1)
		other := createLease(ctx, ns, "other", "other", 1)
		m := &Roster{Reader: k8sClient, Writer: k8sClient, Namespace: ns, Replica: "self", Timing: shortTiming,
			started: time.Now(), observed: map[string]observation{}}
		DeferCleanup(func() { m.end("the spec ended") })
		observeAged := func() {
			m.observe(ctx)
			m.mu.Lock()
			defer m.mu.Unlock()
			for name, o := range m.observed {
				o.lease.Since = o.lease.Since.Add(-time.Hour)
				m.observed[name] = o
			}
		}
		observeAged()

		By("without a term, as when partitioned, it deletes nothing")
		m.collect(ctx)
		Expect(gone(ctx, ns, "other")).To(BeFalse())

		By("holding a term, it leaves a Lease changed since it looked, and its own")
		m.renew(ctx) // takes its own Lease, seen unchanged long enough
		Expect(m.View().Self.IsZero()).To(BeFalse())
		other.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
		Expect(k8sClient.Update(ctx, other)).To(Succeed())
		m.collect(ctx)
		Expect(gone(ctx, ns, "other")).To(BeFalse())

		By("seen unchanged at its new version, it goes; the replica's own stays though seen old")
		observeAged()
		m.collect(ctx)
		Expect(gone(ctx, ns, "other")).To(BeTrue())
		Expect(gone(ctx, ns, "self")).To(BeFalse())

		By("seen missing for StaleAfter, it is forgotten")
		m.observe(ctx)
		observeAged()
		m.collect(ctx)
		m.mu.Lock()
		defer m.mu.Unlock()
		Expect(m.observed).NotTo(HaveKey("other"))
	})
})

// createLease creates the Lease of replica as its Roster would,
// held by holder ("" for released) at term.
func createLease(ctx context.Context, ns, replica, holder string, term int32) *coordinationv1.Lease {
	GinkgoHelper()
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: leasePrefix + replica,
		Labels: map[string]string{ReplicaLabel: replica}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(holder), LeaseTransitions: ptr.To(term),
			LeaseDurationSeconds: ptr.To(int32(1)), RenewTime: &metav1.MicroTime{Time: time.Now()}}}
	Expect(k8sClient.Create(ctx, l)).To(Succeed())
	return l
}

func gone(ctx context.Context, ns, replica string) bool {
	GinkgoHelper()
	err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: leasePrefix + replica}, &coordinationv1.Lease{})
	Expect(client.IgnoreNotFound(err)).To(Succeed())
	return apierrors.IsNotFound(err)
}

// run starts m until the spec ends.
func run(ctx context.Context, m *Roster) *Roster {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stopped := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(stopped)
		Expect(m.Start(ctx)).To(Succeed())
	}()
	DeferCleanup(func() { cancel(); <-stopped })
	return m
}

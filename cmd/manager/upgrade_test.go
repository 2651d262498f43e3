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

package main

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// What docs/operations/upgrade.md says an upgrade costs: the new version
// writes each set's tooling annotation once, and nothing else.
var _ = Describe("an operator upgraded to a new version", func() {
	It("writes each steady set once, its tooling, and none of its members", func(ctx context.Context) {
		env := testenv.StartForSpecs(ctx)
		c := env.Client
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "upgrade-"}}
		Expect(c.Create(ctx, ns)).To(Succeed())
		start := func(version string) func() error {
			GinkgoHelper()
			stop, err := env.RunManager(func(mgr ctrl.Manager) error {
				return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: version, SingleTenant: true})
			})
			Expect(err).NotTo(HaveOccurred())
			return stop
		}
		stop := start("v0.1.0")
		set := shardSet(ns.Name, "upgraded", "", "upgraded-m0")
		set.Spec.Resources = append(set.Spec.Resources, configMap("", "upgraded-m1"))
		Expect(c.Create(ctx, set)).To(Succeed())
		readyNow(ctx, c, set)
		Expect(set.Annotations).To(HaveKeyWithValue(applyset.ToolingAnnotation, "applyset-operator/v0.1.0"))
		members := func() []string {
			GinkgoHelper()
			var out []string
			for _, name := range []string{"upgraded-m0", "upgraded-m1"} {
				cm := &corev1.ConfigMap{}
				Expect(c.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: name}, cm)).To(Succeed())
				out = append(out, cm.ResourceVersion)
			}
			return out
		}
		before := members()
		Expect(stop()).To(Succeed())

		// Every write of the set from here on is an event of this watch.
		wc, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
		Expect(err).NotTo(HaveOccurred())
		writes, err := wc.Watch(ctx, &applyv1alpha1.ApplySetList{}, client.InNamespace(ns.Name),
			&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: set.ResourceVersion}})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(writes.Stop)
		reconciled, err := testenv.Reconciles("applyset")
		Expect(err).NotTo(HaveOccurred())
		stop = start("v0.2.0")
		DeferCleanup(stop)

		By("the new version reconciling the set")
		Eventually(func() (float64, error) { return testenv.Reconciles("applyset") }).Should(BeNumerically(">", reconciled))
		Expect(c.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		Expect(set.Annotations).To(HaveKeyWithValue(applyset.ToolingAnnotation, "applyset-operator/v0.2.0"))
		var seen []string
		for {
			var e watch.Event
			Eventually(writes.ResultChan()).Should(Receive(&e))
			Expect(e.Type).To(Equal(watch.Modified), "event %+v", e)
			written := e.Object.(*applyv1alpha1.ApplySet)
			seen = append(seen, written.ResourceVersion)
			if written.ResourceVersion == set.ResourceVersion {
				break
			}
		}
		Expect(seen).To(HaveLen(1), "the set was written %d times", len(seen))
		Expect(members()).To(Equal(before), "a member was written")
		Expect(set.Status.Conditions).To(ContainElement(HaveField("Type", applyv1alpha1.ConditionReady)))
	})
})

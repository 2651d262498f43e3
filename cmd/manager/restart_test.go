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
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/internal/version"
)

var _ = Describe("a restarted operator", func() {
	It("verifies a steady set again without writing it or its members", func(ctx context.Context) {
		env := testenv.StartForSpecs(ctx)
		c := env.Client
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "restart-"}}
		Expect(c.Create(ctx, ns)).To(Succeed())
		start := func() func() error {
			GinkgoHelper()
			stop, err := env.RunManager(func(mgr ctrl.Manager) error {
				return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: version.String(), SingleTenant: true})
			})
			Expect(err).NotTo(HaveOccurred())
			return stop
		}
		stop := start()
		set := shardSet(ns.Name, "steady", "", "steady-m0")
		set.Spec.Resources = append(set.Spec.Resources, configMap("", "steady-m1"))
		Expect(c.Create(ctx, set)).To(Succeed())
		readyNow(ctx, c, set)
		plan := set.Status.Plan.DeepCopy()
		Expect(plan.Create).To(HaveLen(2))
		versions := func() []string {
			GinkgoHelper()
			var out []string
			for _, name := range []string{"steady-m0", "steady-m1"} {
				cm := &corev1.ConfigMap{}
				Expect(c.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: name}, cm)).To(Succeed())
				out = append(out, cm.ResourceVersion)
			}
			return out
		}
		members, setVersion := versions(), set.ResourceVersion
		Expect(stop()).To(Succeed())

		reconciled, err := testenv.Reconciles("applyset")
		Expect(err).NotTo(HaveOccurred())
		stop = start()
		DeferCleanup(stop)
		By("the new process reconciling the set in full")
		Eventually(func() (float64, error) { return testenv.Reconciles("applyset") }).Should(BeNumerically(">", reconciled))

		Expect(c.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		Expect(set.ResourceVersion).To(Equal(setVersion), "the set was written: status %+v", set.Status)
		Expect(set.Status.Plan).To(Equal(plan), "the plan of the apply that created the members stays")
		Expect(versions()).To(Equal(members))
		Expect(set.Status.Conditions).To(ContainElement(HaveField("Type", applyv1alpha1.ConditionReady)))
	})
})

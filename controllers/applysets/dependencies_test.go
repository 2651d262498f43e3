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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

var _ = Describe("Dependencies between sets", func() {
	It("waits, applying nothing, until the set it depends on is Ready, and is woken when it is", func(ctx context.Context) {
		ns := newNamespace(ctx)
		platform := newSet(ns, "platform", deployment(1))
		Expect(k8sClient.Create(ctx, platform)).To(Succeed())
		app := newSet(ns, "app", inlineConfigMap("app-config", "1"))
		app.Spec.DependsOn = []applyv1alpha1.Dependency{{Name: "platform"}}
		Expect(k8sClient.Create(ctx, app)).To(Succeed())

		Eventually(readyCondition(ctx, app)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", applyv1alpha1.ReasonDependencyNotReady),
			HaveField("Message", ContainSubstring("ApplySet "+ns+"/platform is not Ready (Progressing)"))))
		Consistently(func() bool { return configMapExists(ctx, ns, "app-config") }).WithTimeout(2 * time.Second).Should(BeFalse())

		rollOut(ctx, ns)
		readyFor(ctx, platform)
		// The interval is ten minutes: only the dependency's change can wake the set this soon.
		readyFor(ctx, app)
		Expect(configMapExists(ctx, ns, "app-config")).To(BeTrue())
	})

	It("waits for a set that does not exist yet", func(ctx context.Context) {
		ns := newNamespace(ctx)
		app := newSet(ns, "early", inlineConfigMap("early-config", "1"))
		app.Spec.DependsOn = []applyv1alpha1.Dependency{{Kind: "ApplySet", Name: "late"}}
		Expect(k8sClient.Create(ctx, app)).To(Succeed())
		Eventually(readyCondition(ctx, app)).Should(HaveField("Message", ContainSubstring("ApplySet "+ns+"/late does not exist")))

		Expect(k8sClient.Create(ctx, newSet(ns, "late", inlineConfigMap("late-config", "1")))).To(Succeed())
		readyFor(ctx, app)
	})

	It("reports a circle of dependencies on every set in it", func(ctx context.Context) {
		ns := newNamespace(ctx)
		a, b := newSet(ns, "a", inlineConfigMap("a", "1")), newSet(ns, "b", inlineConfigMap("b", "1"))
		a.Spec.DependsOn = []applyv1alpha1.Dependency{{Name: "b"}}
		b.Spec.DependsOn = []applyv1alpha1.Dependency{{Name: "a"}}
		Expect(k8sClient.Create(ctx, a)).To(Succeed())
		Expect(k8sClient.Create(ctx, b)).To(Succeed())
		for _, set := range []*applyv1alpha1.ApplySet{a, b} {
			Eventually(condition(ctx, set, applyv1alpha1.ConditionStalled)).Should(SatisfyAll(
				HaveField("Reason", applyv1alpha1.ReasonDependencyCycle),
				HaveField("Message", ContainSubstring("ApplySet "+ns+"/"+set.Name+" -> "))))
		}
		Expect(configMapExists(ctx, ns, "a")).To(BeFalse())
	})
})

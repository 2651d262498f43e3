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
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

var _ = Describe("a replica's own claim", func() {
	It("queues no second reconcile of the set it claimed", func(ctx context.Context) {
		env := testenv.StartForSpecs(ctx)
		c := env.Client
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "claims-"}}
		Expect(c.Create(ctx, ns)).To(Succeed())
		stop, err := startReplica(env, ns.Name, "a", false)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(stop)
		reconciles := func() float64 {
			n, err := testenv.Reconciles("applyset")
			Expect(err).NotTo(HaveOccurred())
			return n
		}
		before := reconciles()

		const sets = 10
		for i := range sets {
			set := shardSet(ns.Name, fmt.Sprintf("set-%d", i), "", fmt.Sprintf("set-%d-m0", i))
			Expect(c.Create(ctx, set)).To(Succeed())
			readyNow(ctx, c, set)
		}
		// Each set is reconciled once to Ready; the update its claim made
		// queued each a second time.
		Consistently(func() float64 { return reconciles() - before }).WithTimeout(3 * time.Second).
			Should(BeNumerically("<", 1.5*sets))
		By(fmt.Sprintf("%.0f reconciles of %d sets", reconciles()-before, sets))
	})
})

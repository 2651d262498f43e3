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
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

var _ = Describe("Requests of each step", Serial, func() {
	It("counts each step's requests: the applies in write, the status in status, the identity's checks before the run", func(ctx context.Context) {
		requests := func() map[string]float64 {
			sums, err := testenv.HistogramSums("applyset_operator_reconcile_step_requests", "step")
			Expect(err).NotTo(HaveOccurred())
			return sums
		}
		before := requests()
		ns := newNamespace(ctx)
		resources := make([]applyv1alpha1.Resource, 5)
		for i := range resources {
			resources[i] = inlineConfigMap(fmt.Sprintf("counted-%d", i), "1")
		}
		set := newSet(ns, "counted", resources...)
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		after := requests()
		made := func(step string) float64 { return after[step] - before[step] }
		for step := range after {
			GinkgoWriter.Printf("%s: %.0f requests\n", step, made(step))
		}
		Expect(made("write")).To(BeNumerically(">=", 5), "one apply for each of the 5 members")
		Expect(made("status")).To(BeNumerically(">=", 1), "the status write")
		Expect(made("read")+made("plan-prune")+made("before-writes")).To(BeNumerically(">=", 1), "the hints' write, at least")
		Expect(after).To(SatisfyAll(HaveKey("actor"), HaveKey("authority"), HaveKey("engine"), HaveKey("windows"), HaveKey("recheck")))
	})
})

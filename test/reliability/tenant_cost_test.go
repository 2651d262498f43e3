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
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
)

// Attacks that pass every budget of a reconcile and cost the operator by
// how often they make it work: the smallest interval the schema accepts,
// and the costliest delivery windows. The operator runs with its production floor (--min-interval 30s)
// beside a quiet tenant whose 30 changes must each turn Ready; the slowest,
// the operator's heap and the test process's CPU are reported, not
// asserted: a test does not time a machine it shares.
var _ = Describe("A hostile tenant that makes the operator work often", Ordered, func() {
	BeforeAll(func() {
		env.StartManager(func(mgr ctrl.Manager) error {
			return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default"})
		})
	})

	It("runs a set of 1s no faster than its floor, and decides the costliest windows within bound", func(ctx context.Context) {
		quiet := newQuietTenant(ctx)
		heap := watchHeap()
		cpuBefore := processCPU()

		By("a set asking to be applied every second")
		fast := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNamespace(ctx), Name: "fast"}}
		fast.Spec.Resources = configMaps(20, "v")
		fast.Spec.Interval = &metav1.Duration{Duration: time.Second}
		Expect(k8sClient.Create(ctx, fast)).To(Succeed())

		By("a set with the costliest windows the schema accepts, one of them denying now")
		windowed := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNamespace(ctx), Name: "windowed"}}
		windowed.Spec.Resources = configMaps(1, "v")
		month := &metav1.Duration{Duration: 31 * 24 * time.Hour}
		for range 14 {
			windowed.Spec.Windows = append(windowed.Spec.Windows, applyv1alpha1.Window{Kind: applyv1alpha1.WindowAllow, Schedule: "* * * * *", Duration: month})
		}
		windowed.Spec.Windows = append(windowed.Spec.Windows,
			applyv1alpha1.Window{Kind: applyv1alpha1.WindowAllow, Schedule: "* * * * *", Duration: &metav1.Duration{Duration: 30 * time.Second}},
			applyv1alpha1.Window{Kind: applyv1alpha1.WindowDeny, Schedule: "* * * * *", Duration: month})
		Expect(k8sClient.Create(ctx, windowed)).To(Succeed())

		quiet.change(ctx, 30)

		Eventually(notReady(ctx, windowed)).Should(SatisfyAll(HaveField("Reason", applyv1alpha1.ReasonOutsideWindow),
			HaveField("Message", ContainSubstring("past what one decision searches"))))
		Eventually(ready(ctx, fast)).Should(BeTrue())
		AddReportEntry("hostile tenant, working often", fmt.Sprintf("the quiet tenant's changes were Ready after %s at most; "+
			"the operator's heap peaked %d MiB above where it began; the test process used %s of CPU",
			quiet.slowest(), heap()>>20, processCPU()-cpuBefore))
	})
})

// processCPU is the CPU this process (the operator and the spec) has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	Expect(syscall.Getrusage(syscall.RUSAGE_SELF, &ru)).To(Succeed())
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// Attacks that pass every budget of a reconcile and cost the operator by
// how often they make it work, or by what it holds: the smallest interval
// the schema accepts, the costliest delivery windows, dependencies on 32
// objects of many kinds, and a prune a finalizer holds. The operator runs with its production floor (--min-interval 30s)
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

		quiet.change(ctx)

		Eventually(notReady(ctx, windowed)).Should(SatisfyAll(HaveField("Reason", applyv1alpha1.ReasonOutsideWindow),
			HaveField("Message", ContainSubstring("past what one decision searches"))))
		Eventually(ready(ctx, fast)).Should(BeTrue())
		AddReportEntry("hostile tenant, working often", fmt.Sprintf("the quiet tenant's changes were Ready after %s at most; "+
			"the operator's heap peaked %d MiB above where it began; the test process used %s of CPU",
			quiet.slowest(), heap()>>20, processCPU()-cpuBefore))
	})

	It("watches only what each set's identity read, within bounds, and backs off a prune a finalizer holds", func(ctx context.Context) {
		quiet := newQuietTenant(ctx)
		heap := watchHeap()
		cpuBefore := processCPU()
		watchesBefore := dependencyWatches()

		By("a set depending on 32 objects of 24 kinds, 8 of them where its identity may not read")
		watcher := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNamespace(ctx), Name: "watcher"}}
		watcher.Spec.Resources = configMaps(1, "v")
		for i, k := range dependencyKinds {
			watcher.Spec.DependsOn = append(watcher.Spec.DependsOn, applyv1alpha1.Dependency{APIVersion: k[0], Kind: k[1], Name: fmt.Sprintf("missing-%d", i)})
		}
		for i := range 8 {
			watcher.Spec.DependsOn = append(watcher.Spec.DependsOn, applyv1alpha1.Dependency{APIVersion: "v1", Kind: "Secret",
				Namespace: "kube-system", Name: fmt.Sprintf("not-theirs-%d", i)})
		}
		Expect(k8sClient.Create(ctx, watcher)).To(Succeed())

		By("a set whose pruned member a finalizer holds, and a member pruned after it waiting")
		stuck := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNamespace(ctx), Name: "stuck"}}
		stuck.Spec.Resources = append(configMaps(1, "v"), orderedConfigMap("second", ""),
			orderedConfigMap("first", "/namespaces/"+stuck.Namespace+"/ConfigMap/second"))
		Expect(k8sClient.Create(ctx, stuck)).To(Succeed())
		Eventually(ready(ctx, stuck)).Should(BeTrue())
		first := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: stuck.Namespace, Name: "first"}}
		holdWith(ctx, first, true)
		DeferCleanup(holdWith, first, false)
		Expect(k8sClient.Get(ctx, keyOf(stuck), stuck)).To(Succeed())
		stuck.Spec.Resources = configMaps(1, "v")
		Expect(k8sClient.Update(ctx, stuck)).To(Succeed())

		quiet.change(ctx)

		Eventually(notReady(ctx, watcher)).Should(SatisfyAll(HaveField("Reason", applyv1alpha1.ReasonDependencyNotReady),
			HaveField("Message", ContainSubstring("so the set looks again by itself"))))
		Eventually(notReady(ctx, stuck)).Should(SatisfyAll(HaveField("Reason", applyv1alpha1.ReasonPruning),
			HaveField("Message", ContainSubstring("waits for ConfigMap "+stuck.Namespace+"/first to be deleted"))))
		// A bound, not a timing: one set never holds more than 16 watches, and none where its identity may not read.
		watches := dependencyWatches() - watchesBefore
		Expect(watches).To(BeNumerically("<=", 16))
		AddReportEntry("hostile tenant, watching and waiting", fmt.Sprintf("the quiet tenant's changes were Ready after %s at most; "+
			"the operator's heap peaked %d MiB above where it began; the test process used %s of CPU; the hostile set holds %d "+
			"watches of the 32 objects it depends on", quiet.slowest(), heap()>>20, processCPU()-cpuBefore, watches))
	})
})

// dependencyKinds are kinds the API server serves of namespaced objects a
// hostile set may depend on: apiVersion, kind.
var dependencyKinds = [][2]string{{"v1", "Pod"}, {"v1", "Event"}, {"v1", "Secret"}, {"v1", "Service"}, {"v1", "ServiceAccount"},
	{"v1", "PersistentVolumeClaim"}, {"v1", "ReplicationController"}, {"v1", "LimitRange"}, {"v1", "ResourceQuota"},
	{"v1", "Endpoints"}, {"v1", "PodTemplate"}, {"v1", "ConfigMap"}, {"apps/v1", "Deployment"}, {"apps/v1", "ReplicaSet"},
	{"apps/v1", "StatefulSet"}, {"apps/v1", "DaemonSet"}, {"apps/v1", "ControllerRevision"}, {"batch/v1", "Job"},
	{"batch/v1", "CronJob"}, {"discovery.k8s.io/v1", "EndpointSlice"}, {"rbac.authorization.k8s.io/v1", "Role"},
	{"coordination.k8s.io/v1", "Lease"}, {"networking.k8s.io/v1", "NetworkPolicy"}, {"policy/v1", "PodDisruptionBudget"}}

// dependencyWatches is the operator's count of the watches of objects sets
// depend on, as its metrics serve it.
func dependencyWatches() int {
	GinkgoHelper()
	families, err := crmetrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	for _, f := range families {
		if f.GetName() == "applyset_operator_dependency_watches" {
			return int(f.GetMetric()[0].GetGauge().GetValue())
		}
	}
	Fail("the operator serves no applyset_operator_dependency_watches")
	return 0
}

// orderedConfigMap is a ConfigMap that, where dependsOn names an object, is
// applied after it and pruned before it.
func orderedConfigMap(name, dependsOn string) applyv1alpha1.Resource {
	GinkgoHelper()
	meta := map[string]any{"name": name}
	if dependsOn != "" {
		meta["annotations"] = map[string]any{apply.DependsOnAnnotation: dependsOn}
	}
	r, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta})
	Expect(err).NotTo(HaveOccurred())
	return r
}

// holdWith adds to obj a finalizer, as a controller might, or takes it away.
func holdWith(ctx context.Context, obj client.Object, on bool) {
	GinkgoHelper()
	Expect(testenv.Hold(ctx, k8sClient, obj, on)).To(Succeed())
}

// processCPU is the CPU this process (the operator and the spec) has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	Expect(syscall.Getrusage(syscall.RUSAGE_SELF, &ru)).To(Succeed())
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

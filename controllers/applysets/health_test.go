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
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// rollOut writes a Deployment's status as the Deployment controller does
// once a rollout of its current generation is complete: no controller runs
// in the test control plane.
// rollOut rolls the Deployment web out.
func rollOut(ctx context.Context, ns string) {
	const name = "web"
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d := &appsv1.Deployment{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, d); err != nil {
			return err
		}
		replicas := ptr.Deref(d.Spec.Replicas, 1)
		d.Status = appsv1.DeploymentStatus{
			ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: replicas, ReadyReplicas: replicas,
			AvailableReplicas: replicas,
			Conditions: []appsv1.DeploymentCondition{
				{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable"},
				{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable"},
			},
		}
		return k8sClient.Status().Update(ctx, d)
	})).To(Succeed())
}

func readyCondition(ctx context.Context, set client.Object) func() *metav1.Condition {
	return condition(ctx, set, applyv1alpha1.ConditionReady)
}

var _ = Describe("Health", func() {
	It("is Ready only once every member works, and says what it waits for meanwhile", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "rollout", inlineConfigMap("config", "1"), deployment(2))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())

		Eventually(readyCondition(ctx, set)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", applyv1alpha1.ReasonProgressing),
			HaveField("Message", ContainSubstring("Waiting for 1 of 2 members: Deployment.apps "+ns+"/web (InProgress"))))
		Expect(condition(ctx, set, applyv1alpha1.ConditionReconciling)()).To(HaveField("Status", metav1.ConditionTrue))
		Expect(set.Status.Health).To(HaveValue(SatisfyAll(
			HaveField("Summary", "1/2 ready"), HaveField("Current", HaveValue(BeEquivalentTo(1))),
			HaveField("InProgress", HaveValue(BeEquivalentTo(1))), HaveField("WaitingSince", Not(BeNil())),
			HaveField("Unhealthy", ConsistOf(SatisfyAll(HaveField("Name", "web"), HaveField("Status", "InProgress"),
				HaveField("Message", Not(BeEmpty())))))),
		))
		out, err := env.Kubectl(ctx, "", "get", "applyset", "rollout", "-n", ns)
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(MatchRegexp(`(?m)^NAME\s+READY\s+REASON\s+HEALTH\s+MEMBERS\s+`))
		Expect(out).To(MatchRegexp(`(?m)^rollout\s+False\s+Progressing\s+1/2 ready\s+`))
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "rollout")).Should(ContainElement("Normal/" + applyv1alpha1.ReasonProgressing))

		By("rolling the Deployment out, as its controller would")
		rollOut(ctx, ns)
		readyFor(ctx, set)
		Expect(set.Status.Health).To(HaveValue(SatisfyAll(HaveField("Summary", "2/2 ready"), HaveField("Unhealthy", BeEmpty()))))
		Expect(condition(ctx, set, applyv1alpha1.ConditionReconciling)()).To(BeNil())
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "rollout")).Should(ContainElement("Normal/" + applyv1alpha1.ReasonSucceeded))
	})

	It("stalls when the members are not healthy within spec.timeout", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "never", deployment(1))
		set.Spec.Timeout = &metav1.Duration{Duration: 3 * time.Second}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionStalled)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionTrue), HaveField("Reason", applyv1alpha1.ReasonHealthCheckFailed),
			HaveField("Message", ContainSubstring("not healthy after 3s (spec.timeout)"))))
		Expect(readyCondition(ctx, set)()).To(HaveField("Status", metav1.ConditionFalse))
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "never")).Should(ContainElement("Warning/" + applyv1alpha1.ReasonHealthCheckFailed))

		By("recovering when the member becomes healthy after all")
		rollOut(ctx, ns)
		readyFor(ctx, set)
	})

	It("judges a kind kstatus cannot with the set's CEL health check", func(ctx context.Context) {
		crd := testenv.OpenCRD("health.example.com", "Task")
		Expect(k8sClient.Create(ctx, crd)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, crd))).To(Succeed()) })
		ns := newNamespace(ctx)
		set := newSet(ns, "tasks", object(map[string]any{"apiVersion": "health.example.com/v1", "kind": "Task",
			"metadata": map[string]any{"name": "t"}, "spec": map[string]any{"run": "once"}}))
		set.Spec.HealthChecks = []applyv1alpha1.HealthCheck{{APIVersion: "health.example.com/v1", Kind: "Task",
			Current: "status.?phase.orValue('') == 'Succeeded'", Failed: "status.?phase.orValue('') == 'Failed'"}}
		Eventually(func() error { return k8sClient.Create(ctx, set) }).Should(Succeed())
		Eventually(readyCondition(ctx, set)).Should(SatisfyAll(HaveField("Reason", applyv1alpha1.ReasonProgressing),
			HaveField("Message", ContainSubstring("waiting for"))))

		phase := func(value string) {
			GinkgoHelper()
			task := &unstructured.Unstructured{}
			task.SetAPIVersion("health.example.com/v1")
			task.SetKind("Task")
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "t"}, task)).To(Succeed())
			Expect(unstructured.SetNestedField(task.Object, value, "status", "phase")).To(Succeed())
			Expect(k8sClient.Update(ctx, task)).To(Succeed())
		}
		phase("Failed")
		Eventually(condition(ctx, set, applyv1alpha1.ConditionStalled)).Should(SatisfyAll(
			HaveField("Reason", applyv1alpha1.ReasonHealthCheckFailed), HaveField("Message", ContainSubstring("1 of 1 members failed"))))
		phase("Succeeded")
		readyFor(ctx, set)
	})

	It("is Ready once applied with spec.wait false, as before", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "nowait", deployment(1))
		set.Spec.Wait = ptr.To(false)
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(set.Status.Health).To(BeNil())
	})

	It("refuses a health check that does not compile at admission, dry run or not", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "badcheck", inlineConfigMap("a", "1"))
		set.Spec.HealthChecks = []applyv1alpha1.HealthCheck{{APIVersion: "v1", Kind: "ConfigMap", Current: "data.k =="}}
		Eventually(func() error { return k8sClient.Create(ctx, set.DeepCopy(), client.DryRunAll) }).Should(And(
			MatchError(ContainSubstring("admission webhook")), MatchError(ContainSubstring("health check 0 (ConfigMap): current:"))))
		Expect(k8sClient.Create(ctx, set)).To(MatchError(ContainSubstring("current:")))

		By("admitting one that compiles")
		set.Spec.HealthChecks[0].Current = "has(self.data.k)"
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
	})

	It("sends the webhook only writes that bring new health checks", func(ctx context.Context) {
		updates := func() float64 {
			n, err := testenv.CounterSum(ctx, env.Config, "apiserver_admission_webhook_request_total",
				map[string]string{"name": "healthchecks.apply.applyset.dev", "operation": "UPDATE"})
			Expect(err).NotTo(HaveOccurred())
			return n
		}
		ns := newNamespace(ctx)
		set := newSet(ns, "checked", inlineConfigMap("a", "1"))
		set.Spec.HealthChecks = []applyv1alpha1.HealthCheck{{APIVersion: "v1", Kind: "ConfigMap", Current: "data.k =="}}
		Eventually(func() error { return k8sClient.Create(ctx, set.DeepCopy(), client.DryRunAll) }).
			Should(MatchError(ContainSubstring("admission webhook")), "the webhook is not in place yet")
		set.Spec.HealthChecks[0].Current = "has(self.data.k)"
		before := updates()
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		Expect(set.GetLabels()).To(HaveKey(applyset.IDLabel), "the operator's metadata apply is an update")

		By("labelling the set, which changes no health check")
		patch := client.MergeFrom(set.DeepCopy())
		set.Labels["team"] = "a"
		Expect(k8sClient.Patch(ctx, set, patch)).To(Succeed())
		Expect(updates()).To(Equal(before), "an update that keeps the health checks reached the webhook")

		By("changing the health check to one that does not compile")
		patch = client.MergeFrom(set.DeepCopy())
		set.Spec.HealthChecks[0].Current = "data.k =="
		Expect(k8sClient.Patch(ctx, set, patch)).To(MatchError(ContainSubstring("current:")))
		Expect(updates()).To(Equal(before + 1))
	})
})

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

package e2e

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The specs build on each other as a user's session would: install, use,
// scale, uninstall; then the same with the Helm chart.
var _ = Describe("The operator installed from the release's install.yaml, then with its chart", Ordered, func() {
	It("starts a Pod that becomes Ready through its probes", func() {
		// The release's install.yaml, as a user installs it.
		run("kubectl", "apply", "--server-side", "-f", installed.installYAML)
		run("kubectl", "rollout", "status", "-n", namespace, "deployment/"+deployment, "--timeout", "3m")

		pods := managerPods()
		Expect(pods).To(HaveLen(1))
		out := run("kubectl", "get", "pod", "-n", namespace, pods[0], "-o", "json")
		var pod struct {
			Spec struct {
				Containers []struct {
					Image           string
					ImagePullPolicy string
					ReadinessProbe  *json.RawMessage
					LivenessProbe   *json.RawMessage
				}
			}
			Status struct {
				Conditions        []struct{ Type, Status string }
				ContainerStatuses []struct{ RestartCount int }
			}
		}
		Expect(json.Unmarshal([]byte(out), &pod)).To(Succeed())
		c := pod.Spec.Containers[0]
		Expect(c.Image).To(Equal(installed.image))
		Expect(c.ImagePullPolicy).To(Equal("IfNotPresent"))
		Expect(c.ReadinessProbe).NotTo(BeNil())
		Expect(c.LivenessProbe).NotTo(BeNil())
		Expect(pod.Status.Conditions).To(ContainElement(And(
			HaveField("Type", "Ready"), HaveField("Status", "True"))))
		Expect(pod.Status.ContainerStatuses[0].RestartCount).To(BeZero())

		By("asking the running manager its version")
		printed := run("kubectl", "exec", "-n", namespace, pods[0], "--", "/manager", "--version")
		GinkgoWriter.Printf("the running manager: %s", printed)
		Expect(printed).To(ContainSubstring(version()), "the manager of the release's image prints the release's version")
	})

	It("serves metrics over HTTPS only to clients the RBAC allows", func() {
		run("kubectl", "create", "namespace", "e2e-metrics")
		run("kubectl", "create", "serviceaccount", "-n", "e2e-metrics", "scraper")
		run("kubectl", "create", "serviceaccount", "-n", "e2e-metrics", "stranger")
		run("kubectl", "create", "clusterrolebinding", "e2e-metrics-scraper",
			"--clusterrole", "applyset-operator-metrics-reader", "--serviceaccount", "e2e-metrics:scraper")
		allowed := strings.TrimSpace(run("kubectl", "create", "token", "-n", "e2e-metrics", "scraper"))
		refused := strings.TrimSpace(run("kubectl", "create", "token", "-n", "e2e-metrics", "stranger"))
		ip := strings.TrimSpace(run("kubectl", "get", "service", "-n", namespace,
			"applyset-operator-controller-manager-metrics-service", "-o", "jsonpath={.spec.clusterIP}"))
		url := "https://" + ip + ":8443/metrics"

		Eventually(func(g Gomega) {
			code, body, err := scrape(url, allowed)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(code).To(Equal(200))
			g.Expect(body).To(ContainSubstring("controller_runtime_reconcile_total"))
		}).Should(Succeed())
		code, _, err := scrape(url, refused)
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(Equal(403), "a ServiceAccount without the metrics-reader role")
		code, _, err = scrape(url, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(Equal(401), "no token")
		code, body, err := scrape("http://"+ip+":8443/metrics", allowed)
		if err == nil {
			Expect(body).NotTo(ContainSubstring("controller_runtime"), "metrics served over plain HTTP")
			Expect(code).To(Equal(400))
		}
	})

	It("generates its certificate and drops gated fields of the feature gates guide's sample through the webhook Service, "+
		"the backend of the default install", func() {
		// auto: the API server serves MutatingAdmissionPolicies, but the
		// default install does not let the operator write them.
		Expect(logsOf(managerPods()[0])).To(ContainSubstring("Feature gates enforced by the webhook backend: the operator may not write admission policies"))
		run("kubectl", "apply", "-f", "config/samples/try/widgets_crd.yaml")
		run("kubectl", "apply", "-f", "config/samples/features_v1alpha1_customfeaturegates.yaml")
		run("kubectl", "wait", "cfg/widgets.example.com", "--for", "condition=Ready", "--timeout", "2m")

		var secret struct{ Data map[string]string }
		out := run("kubectl", "get", "secret", "-n", namespace, "applyset-operator-webhook-server-cert", "-o", "json")
		Expect(json.Unmarshal([]byte(out), &secret)).To(Succeed())
		Expect(secret.Data).To(HaveKey("tls.key"))
		Expect(secret.Data).To(HaveKey("ca.crt"))
		cert := parseCert(secret.Data["tls.crt"])
		Expect(cert.DNSNames).To(ContainElement("applyset-operator-webhook-service." + namespace + ".svc"))

		var config struct {
			Webhooks []struct {
				FailurePolicy string
				ClientConfig  struct {
					CABundle string
					Service  struct{ Namespace, Name string }
				}
			}
		}
		Eventually(func(g Gomega) {
			out, _, err := kubectl("get", "mutatingwebhookconfiguration", "applyset-operator-featuregates", "-o", "json")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(json.Unmarshal([]byte(out), &config)).To(Succeed())
			g.Expect(config.Webhooks).To(HaveLen(1))
			g.Expect(config.Webhooks[0].ClientConfig.CABundle).To(Equal(secret.Data["ca.crt"]))
		}).Should(Succeed())
		Expect(config.Webhooks[0].ClientConfig.Service.Namespace).To(Equal(namespace))
		Expect(config.Webhooks[0].ClientConfig.Service.Name).To(Equal("applyset-operator-webhook-service"))
		Expect(config.Webhooks[0].FailurePolicy).To(Equal("Fail"))

		// Only the webhook warns of a deprecated gate's field it drops.
		Eventually(func(g Gomega) {
			spec, warnings, err := dryRunWidget()
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(spec).To(HaveKey("replicas"))
			g.Expect(spec).To(HaveKey("storage"))
			g.Expect(spec).NotTo(HaveKey("autoscaling"))
			g.Expect(spec).NotTo(HaveKey("color"))
			g.Expect(warnings).To(ContainSubstring("spec.color is deprecated"))
		}).Should(Succeed())
		_, _, err := kubectl("get", "mutatingadmissionpolicy", "featuregates.widgets.example.com")
		Expect(err).To(MatchError(ContainSubstring("NotFound")), "the default install wrote an admission policy")
	})

	It("drops them through admission policies once config/components/policy-backend grants the operator their rights", func() {
		run("kubectl", "apply", "--server-side", "-k", "test/e2e/testdata/policy-backend")
		// The rights are read at start.
		run("kubectl", "rollout", "restart", "-n", namespace, "deployment/"+deployment)
		run("kubectl", "rollout", "status", "-n", namespace, "deployment/"+deployment, "--timeout", "3m")
		Eventually(func() string { return logsOf(managerPods()[0]) }).Should(ContainSubstring("Feature gates enforced by the policy backend"))
		// The gates were Ready under the webhook already: wait for Ready to
		// name the policies, not for Ready alone.
		Eventually(func() (string, error) {
			return get(`{.status.conditions[?(@.type=="Ready")].status} {.status.conditions[?(@.type=="Ready")].message}`,
				"get", "cfg", "widgets.example.com")
		}).Should(And(HavePrefix("True "), ContainSubstring("enforced by the API server, admission policies")))
		run("kubectl", "get", "mutatingadmissionpolicy", "featuregates.widgets.example.com")
		Eventually(func(g Gomega) {
			spec, _, err := dryRunWidget()
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(spec).To(HaveKey("replicas"))
			g.Expect(spec).NotTo(HaveKey("autoscaling"))
			g.Expect(spec).NotTo(HaveKey("color"))
		}).Should(Succeed())
		Eventually(func() string {
			out, _, _ := kubectl("get", "mutatingwebhookconfiguration", "applyset-operator-featuregates", "-o", "jsonpath={.webhooks[*].name}")
			return out
		}).Should(BeEmpty(), "the webhook entry stayed beside the policies")
	})

	It("applies and prunes an ApplySet with only the shipped RBAC", func() {
		run("kubectl", "create", "namespace", "e2e-sets")
		// The set acts as the namespace's default ServiceAccount, which the user
		// lets edit the namespace; the operator itself has only config/rbac.
		run("kubectl", "create", "rolebinding", "-n", "e2e-sets", "default-edit",
			"--clusterrole", "edit", "--serviceaccount", "e2e-sets:default")
		applySet("a", "b")
		Expect(configMaps()).To(ConsistOf("a", "b"))

		// The health-check webhook, through its Service, refuses CEL that does not compile.
		_, _, err := kubectlIn(`{"apiVersion": "apply.applyset.dev/v1alpha1", "kind": "ApplySet",
			"metadata": {"name": "bad", "namespace": "e2e-sets"},
			"spec": {"resources": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bad"}}],
				"healthChecks": [{"apiVersion": "v1", "kind": "ConfigMap", "current": "not CEL ((("}]}}`,
			"create", "-f", "-")
		Expect(err).To(MatchError(ContainSubstring(`admission webhook "healthchecks.apply.applyset.dev" denied the request`)))

		applySet("a")
		Eventually(configMaps).Should(ConsistOf("a"))
	})

	It("elects one leader of two replicas and hands over when the leader's Pod is deleted", func() {
		run("kubectl", "scale", "-n", namespace, "deployment/"+deployment, "--replicas", "2")
		run("kubectl", "rollout", "status", "-n", namespace, "deployment/"+deployment, "--timeout", "3m")
		pods := managerPods()
		Expect(pods).To(HaveLen(2))
		var first string
		Eventually(func(g Gomega) {
			var err error
			first, err = leader()
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pods).To(ContainElement(first))
		}).Should(Succeed())
		Expect(acquired(pods)).To(ConsistOf(first), "exactly one replica acquired the lease")

		before := resourceVersion("a")
		deleted := time.Now()
		run("kubectl", "delete", "pod", "-n", namespace, first, "--wait=false")
		var second string
		Eventually(func(g Gomega) {
			var err error
			second, err = leader()
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(second).NotTo(BeEmpty())
			g.Expect(second).NotTo(Equal(first))
		}).Should(Succeed())
		GinkgoWriter.Printf("the lease moved from %s to %s %s after the delete\n", first, second, time.Since(deleted).Round(100*time.Millisecond))

		// The new leader picks up a change, and rewrites nothing that was up to date.
		applySet("a", "c")
		Expect(configMaps()).To(ConsistOf("a", "c"))
		Expect(resourceVersion("a")).To(Equal(before), "an up-to-date member was written again")
	})

	It("was refused nothing by the API server with only the shipped RBAC", func() {
		for _, pod := range managerPods() {
			logs := logsOf(pod)
			for _, line := range strings.Split(logs, "\n") {
				if strings.Contains(line, `"level":"error"`) {
					GinkgoWriter.Println(pod, line)
				}
			}
			Expect(logs).NotTo(ContainSubstring("forbidden"), pod)
		}
	})

	It("uninstalls the release's install.yaml as make undeploy does: every member keeps running, no webhook entry fails closed", func() {
		applyWorkload()
		members := configMaps()
		Expect(members).To(ContainElement("workload-config"))
		workloadPod = run("kubectl", "get", "pods", "-n", "e2e-sets", "-l", "app=sleeper", "-o", "jsonpath={.items[0].metadata.uid}")
		workloadGeneration = run("kubectl", "get", "deployment", "-n", "e2e-sets", "sleeper", "-o", "jsonpath={.metadata.generation}")

		// The CRDs first, while the operator runs and may still release its
		// sets' finalizers, then the rest. In one step (kubectl delete -f
		// alone) its RBAC can go before the sets do, which leaves the CRDs
		// waiting until the operator runs again (docs/operations/uninstall.md).
		deleteSetCRDs()
		run("kubectl", "delete", "-f", installed.installYAML, "--ignore-not-found", "--timeout", "5m")
		expectUninstalled(members)
		// A gated CRD outlives the operator, and writes to it go through.
		run("kubectl", "create", "-f", "config/samples/try/widget.yaml")
	})

	It("installs with the Helm chart, takes the set's members back without touching them, and uninstalls keeping them", func() {
		By("installing the release's packaged chart with helm install")
		run(helm, "install", "applyset-operator", installed.chart, "-n", namespace, "--create-namespace")
		run("kubectl", "rollout", "status", "-n", namespace, "deployment/"+deployment, "--timeout", "3m")
		Expect(run("kubectl", "get", "deployment", "-n", namespace, deployment, "-o",
			"jsonpath={.spec.template.spec.containers[0].image}")).To(Equal(installed.image))
		expectWorkloadTakenBack()

		By("deleting the set CRDs while the operator runs, then helm uninstall")
		members := configMaps()
		deleteSetCRDs()
		run(helm, "uninstall", "applyset-operator", "-n", namespace, "--timeout", "5m")
		expectUninstalled(members)
		// The chart keeps its CRDs (crds.keep): CustomFeatureGates outlive it.
		run("kubectl", "get", "crd", "customfeaturegates.features.applyset.dev")
	})

	It("installs from the release's install.yaml again and takes the members back, as the other specs find it", func() {
		run("kubectl", "apply", "--server-side", "--force-conflicts", "-f", installed.installYAML)
		run("kubectl", "rollout", "status", "-n", namespace, "deployment/"+deployment, "--timeout", "3m")
		expectWorkloadTakenBack()
	})
})

// The workload's Pod and Deployment generation when the operator was first
// uninstalled: every later install takes them back untouched.
var workloadPod, workloadGeneration string

// helm is the CLI make test-e2e builds from test/helm's module.
const helm = "bin/helm"

// deleteSetCRDs deletes the ApplySet and ClusterApplySet CRDs and waits
// until they are gone: the operator, still running, lets every set go.
func deleteSetCRDs() {
	GinkgoHelper()
	run("kubectl", "delete", "--ignore-not-found", "--wait", "--timeout=5m",
		"crd", "applysets.apply.applyset.dev", "clusterapplysets.apply.applyset.dev")
}

// expectUninstalled checks what an uninstall keeps: every member, the
// workload's Pod running, and no webhook entry that would fail closed.
func expectUninstalled(members []string) {
	GinkgoHelper()
	Expect(configMaps()).To(ConsistOf(members), "uninstalling the operator deleted members of its sets")
	_, _, err := kubectl("get", "crd", "applysets.apply.applyset.dev")
	Expect(err).To(MatchError(ContainSubstring("NotFound")), "the CRD was held by a set's finalizer")
	Expect(run("kubectl", "get", "pods", "-n", "e2e-sets", "-l", "app=sleeper",
		"-o", "jsonpath={.items[0].metadata.uid} {.items[0].status.phase}")).To(Equal(workloadPod+" Running"), "the workload stopped")
	Eventually(func(g Gomega) {
		for _, kind := range []string{"mutatingwebhookconfigurations", "validatingwebhookconfigurations"} {
			out, err := get(`{range .items[*]}{.metadata.name}{" "}{range .webhooks[*]}{.failurePolicy}{" "}{.clientConfig.service.namespace}{"\n"}{end}{end}`,
				"get", kind)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(out).NotTo(ContainSubstring("Fail "+namespace), kind)
		}
	}).Should(Succeed())
}

// expectWorkloadTakenBack declares the set again on a new install: it takes
// its members back without recreating or changing them.
func expectWorkloadTakenBack() {
	GinkgoHelper()
	applyWorkload()
	Expect(run("kubectl", "get", "pods", "-n", "e2e-sets", "-l", "app=sleeper", "-o", "jsonpath={.items[0].metadata.uid}")).To(Equal(workloadPod))
	Expect(run("kubectl", "get", "deployment", "-n", "e2e-sets", "sleeper", "-o", "jsonpath={.metadata.generation}")).
		To(Equal(workloadGeneration), "re-adopting the Deployment changed it")
	Expect(run("kubectl", "get", "applyset", "-n", "e2e-sets", "workload", "-o", "jsonpath={.status.memberCount}")).To(Equal("2"))
}

// applyWorkload applies the ApplySet workload in e2e-sets, a Deployment that
// runs the node's pause image and a ConfigMap, and waits until it is Ready:
// the Deployment rolled out.
func applyWorkload() {
	GinkgoHelper()
	_, _, err := kubectlIn(`{"apiVersion": "apply.applyset.dev/v1alpha1", "kind": "ApplySet",
		"metadata": {"name": "workload", "namespace": "e2e-sets"},
		"spec": {"resources": [
			{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "workload-config"}, "data": {"k": "v"}},
			{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "sleeper"},
			 "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "sleeper"}},
			  "template": {"metadata": {"labels": {"app": "sleeper"}},
			   "spec": {"containers": [{"name": "pause", "image": "`+pauseImage+`", "imagePullPolicy": "Never", "command": ["/pause"]}]}}}}]}}`,
		"apply", "--server-side", "-f", "-")
	Expect(err).NotTo(HaveOccurred())
	Eventually(func(g Gomega) {
		out, err := get(`{.metadata.generation} {.status.observedGeneration} {.status.conditions[?(@.type=="Ready")].status}`,
			"get", "applyset", "-n", "e2e-sets", "workload")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(strings.Fields(out)).To(HaveLen(3), out)
		g.Expect(strings.Fields(out)[1]).To(Equal(strings.Fields(out)[0]), "observed generation")
		g.Expect(strings.Fields(out)[2]).To(Equal("True"), "Ready")
	}).WithTimeout(3 * time.Minute).Should(Succeed())
}

// pauseImage is the image hack/e2e-cluster.sh builds and imports for Pod sandboxes.
const pauseImage = "docker.io/applyset-operator-e2e/pause:1"

// applySet applies the ApplySet web in e2e-sets with one ConfigMap per name and
// waits until the operator reports the generation Ready.
func applySet(names ...string) {
	GinkgoHelper()
	var resources []map[string]any
	for _, name := range names {
		resources = append(resources, map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name}, "data": map[string]any{"key": "value"},
		})
	}
	set, err := json.Marshal(map[string]any{
		"apiVersion": "apply.applyset.dev/v1alpha1", "kind": "ApplySet",
		"metadata": map[string]any{"name": "web", "namespace": "e2e-sets"},
		"spec":     map[string]any{"prune": true, "resources": resources},
	})
	Expect(err).NotTo(HaveOccurred())
	_, _, err = kubectlIn(string(set), "apply", "--server-side", "-f", "-")
	Expect(err).NotTo(HaveOccurred())
	Eventually(func(g Gomega) {
		out, err := get(`{.metadata.generation} {.status.observedGeneration} {.status.conditions[?(@.type=="Ready")].status}`,
			"get", "applyset", "-n", "e2e-sets", "web")
		g.Expect(err).NotTo(HaveOccurred())
		f := strings.Fields(out)
		g.Expect(f).To(HaveLen(3), out)
		g.Expect(f[1]).To(Equal(f[0]), "observed generation")
		g.Expect(f[2]).To(Equal("True"), "Ready")
	}).Should(Succeed())
}

// configMaps are the members of web in e2e-sets.
func configMaps() []string {
	GinkgoHelper()
	out := run("kubectl", "get", "configmaps", "-n", "e2e-sets", "-l", "applyset.kubernetes.io/part-of",
		"-o", "jsonpath={.items[*].metadata.name}")
	return strings.Fields(out)
}

func resourceVersion(configMap string) string {
	GinkgoHelper()
	return run("kubectl", "get", "configmap", "-n", "e2e-sets", configMap, "-o", "jsonpath={.metadata.resourceVersion}")
}

// acquired lists the Pods whose log says they acquired the lease.
func acquired(pods []string) []string {
	GinkgoHelper()
	var leaders []string
	for _, pod := range pods {
		if strings.Contains(strings.ToLower(logsOf(pod)), "successfully acquired lease") {
			leaders = append(leaders, pod)
		}
	}
	return leaders
}

func parseCert(b64 string) *x509.Certificate {
	GinkgoHelper()
	data, err := base64.StdEncoding.DecodeString(b64)
	Expect(err).NotTo(HaveOccurred())
	block, _ := pem.Decode(data)
	Expect(block).NotTo(BeNil())
	cert, err := x509.ParseCertificate(block.Bytes)
	Expect(err).NotTo(HaveOccurred())
	return cert
}

func logsOf(pod string) string {
	GinkgoHelper()
	return run("kubectl", "logs", "-n", namespace, pod)
}

// dryRunWidget creates the feature gates guide's sample widget with server-side dry-run and
// returns the spec that would be stored and the warnings.
func dryRunWidget() (map[string]any, string, error) {
	stdout, stderr, err := kubectl("create", "--dry-run=server", "-o", "json", "-f", "config/samples/try/widget.yaml")
	if err != nil {
		return nil, stderr, err
	}
	var widget struct{ Spec map[string]any }
	err = json.Unmarshal([]byte(stdout), &widget)
	return widget.Spec, stderr, err
}

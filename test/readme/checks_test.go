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

package readme

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// checks say, for each example marked `run ID`, what the README's text says
// happens once it has run; out is what the example wrote.
var checks = map[string]func(ctx context.Context, out string){
	"local-control-plane":       checkLocalControlPlane,
	"grant-default":             checkGrantDefault,
	"quickstart-ready":          checkQuickstartReady,
	"quickstart-prune":          checkQuickstartPrune,
	"getting-started-kubectl":   checkLocalControlPlane,
	"getting-started-namespace": checkDemoNamespace,
	"declare-preview":           checkDeclarePreview,
	"declare-apply":             checkDeclareApply,
	"argo-cd":                   checkArgoCD,
	"kubectl-set":               checkKubectlSet,
	"plugin":                    checkPlugin,
	"feature-gates":             checkFeatureGates,
	"feature-gates-plugin":      checkFeatureGatesPlugin,
	"policy-metrics":            checkPolicyMetrics,
	"depends-on-object":         checkDependsOnObject,
	"drift-report":              checkDriftReport,
	"drift-declared":            checkDriftDeclared,
}

// setups prepare, for some examples marked `run ID`, what their text says
// the cluster has and make run does not start, before they run.
var setups = map[string]func(ctx context.Context){}

const (
	partOfLabel = "applyset.kubernetes.io/part-of"
	idLabel     = "applyset.kubernetes.io/id"
)

func key(namespace, name string) client.ObjectKey {
	return client.ObjectKey{Namespace: namespace, Name: name}
}

// kubectl get crds lists the operator's CRDs, with kubectl and the
// kubeconfig found through the lines run-local prints.
func checkLocalControlPlane(_ context.Context, out string) {
	Expect(out).To(And(
		ContainSubstring("applysets.apply.applyset.dev"),
		ContainSubstring("clusterapplysets.apply.applyset.dev"),
		ContainSubstring("customfeaturegates.features.applyset.dev"),
	))
}

// The default ServiceAccount was there without anyone creating it, and it
// is granted.
func checkGrantDefault(ctx context.Context, out string) {
	Expect(out).To(MatchRegexp(`(?m)^default\s+`), "kubectl get serviceaccount default found none")
	Expect(kube.Get(ctx, key("default", "default"), &corev1.ServiceAccount{})).To(Succeed())
	binding := &rbacv1.RoleBinding{}
	Expect(kube.Get(ctx, key("default", "default-admin"), binding)).To(Succeed())
	Expect(binding.Subjects).To(ConsistOf(HaveField("Name", "default")))
}

// The quick start's set is Ready with its two members healthy and labelled.
func checkQuickstartReady(ctx context.Context, out string) {
	set := getSet(ctx, "default", "hello")
	ready := readyCondition(set)
	Expect(ready.Status).To(BeEquivalentTo("True"))
	Expect(ready.Reason).To(Equal(applyv1alpha1.ReasonSucceeded))
	Expect(set.Status.Health).NotTo(BeNil())
	Expect(set.Status.Health.Summary).To(Equal("2/2 ready"))
	Expect(out).To(MatchRegexp(`hello\s+True\s+Succeeded\s+2/2 ready`))
	for name, obj := range map[string]client.Object{"hello-config": &corev1.ConfigMap{}, "hello": &appsv1.Deployment{}} {
		Expect(kube.Get(ctx, key("default", name), obj)).To(Succeed())
		Expect(obj.GetLabels()).To(HaveKeyWithValue(partOfLabel, set.Status.ApplySetID))
	}
}

// The ConfigMap taken out of the set was pruned, the Deployment stays, and
// the set is Ready for its new spec with one member.
func checkQuickstartPrune(ctx context.Context, out string) {
	set := getSet(ctx, "default", "hello")
	ready := readyCondition(set)
	Expect(ready.Status).To(BeEquivalentTo("True"))
	Expect(ready.ObservedGeneration).To(Equal(set.Generation))
	Expect(set.Status.Members).To(ConsistOf(HaveField("Name", "hello")))
	err := kube.Get(ctx, key("default", "hello-config"), &corev1.ConfigMap{})
	Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the ConfigMap taken out of the set was not pruned (%v)", err)
	Expect(kube.Get(ctx, key("default", "hello"), &appsv1.Deployment{})).To(Succeed())
	Expect(out).To(ContainSubstring("kube-root-ca.crt"))
	Expect(out).NotTo(ContainSubstring("hello-config"))
}

// The namespace of getting started exists, and its default ServiceAccount
// holds the namespace's admin role there, no more.
func checkDemoNamespace(ctx context.Context, _ string) {
	Expect(kube.Get(ctx, key("", "demo"), &corev1.Namespace{})).To(Succeed())
	binding := &rbacv1.RoleBinding{}
	Expect(kube.Get(ctx, key("demo", "sets-admin"), binding)).To(Succeed())
	Expect(binding.RoleRef.Name).To(Equal("admin"))
	Expect(binding.Subjects).To(ConsistOf(And(HaveField("Name", "default"), HaveField("Namespace", "demo"))))
}

// readyCondition returns the set's Ready condition, failing when it has none.
func readyCondition(set *applyv1alpha1.ApplySet) *metav1.Condition {
	GinkgoHelper()
	ready := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
	Expect(ready).NotTo(BeNil(), "the set has no Ready condition: %+v", set.Status)
	return ready
}

func getSet(ctx context.Context, namespace, name string) *applyv1alpha1.ApplySet {
	GinkgoHelper()
	set := &applyv1alpha1.ApplySet{}
	Expect(kube.Get(ctx, key(namespace, name), set)).To(Succeed())
	return set
}

func refNames(refs []applyv1alpha1.ObjectReference) []string {
	names := make([]string, 0, len(refs))
	for _, r := range refs {
		names = append(names, r.Kind+" "+r.Name)
	}
	return names
}

// The preview is Ready with reason Previewed, its plan creates the three
// objects, and nothing exists yet.
func checkDeclarePreview(ctx context.Context, out string) {
	set := getSet(ctx, "demo", "web")
	ready := readyCondition(set)
	Expect(ready.Status).To(BeEquivalentTo("True"))
	Expect(ready.Reason).To(Equal(applyv1alpha1.ReasonPreviewed))
	Expect(set.Status.Plan).NotTo(BeNil())
	Expect(set.Status.Plan.DryRun).To(HaveValue(BeTrue()))
	Expect(refNames(set.Status.Plan.Create)).To(ConsistOf("ConfigMap web-config", "Deployment web", "Service web"))
	Expect(set.Status.Plan.Counts).NotTo(BeNil())
	Expect(set.Status.Plan.Counts.Create).To(HaveValue(BeEquivalentTo(3)))
	Expect(out).To(ContainSubstring("plan:"), "kubectl get aset web -o yaml shows no plan")
	err := kube.Get(ctx, key("demo", "web"), &appsv1.Deployment{})
	Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a preview created the Deployment (%v)", err)
}

// Once kubectl wait returns, the set is Ready for the new spec with its
// three members healthy, the Deployment among them with the status the
// Deployment controller gave it.
func checkDeclareApply(ctx context.Context, out string) {
	set := getSet(ctx, "demo", "web")
	ready := readyCondition(set)
	Expect(ready.Status).To(BeEquivalentTo("True"))
	Expect(ready.Reason).To(Equal(applyv1alpha1.ReasonSucceeded))
	Expect(ready.ObservedGeneration).To(Equal(set.Generation))
	Expect(set.Status.Health).NotTo(BeNil())
	Expect(set.Status.Health.Summary).To(Equal("3/3 ready"))
	Expect(out).To(MatchRegexp(`web\s+True\s+Succeeded\s+3/3 ready`))

	deployment := &appsv1.Deployment{}
	Expect(kube.Get(ctx, key("demo", "web"), deployment)).To(Succeed())
	Expect(deployment.Labels).To(HaveKeyWithValue(partOfLabel, set.Status.ApplySetID))
	Expect(deployment.Status.ObservedGeneration).To(Equal(deployment.Generation))
	for name, obj := range map[string]client.Object{"web-config": &corev1.ConfigMap{}, "web": &corev1.Service{}} {
		Expect(kube.Get(ctx, key("demo", name), obj)).To(Succeed())
		Expect(obj.GetLabels()).To(HaveKeyWithValue(partOfLabel, set.Status.ApplySetID))
	}
}

// corpusObjects counts the objects of a gzip-compressed corpus file.
func corpusObjects(file string) (kinds map[string]int, total int) {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(root, file))
	Expect(err).NotTo(HaveOccurred())
	zr, err := gzip.NewReader(bytes.NewReader(data))
	Expect(err).NotTo(HaveOccurred())
	decoder := yaml.NewYAMLOrJSONDecoder(zr, 4096)
	kinds = map[string]int{}
	for {
		obj := &unstructured.Unstructured{}
		err := decoder.Decode(&obj.Object)
		if errors.Is(err, io.EOF) {
			return kinds, total
		}
		Expect(err).NotTo(HaveOccurred())
		if len(obj.Object) > 0 {
			kinds[obj.GetKind()]++
			total++
		}
	}
}

// The set applies every object of Argo CD's install.yaml and waits,
// Progressing, for its Deployments and StatefulSet: no node runs their Pods.
func checkArgoCD(ctx context.Context, _ string) {
	kinds, total := corpusObjects(offline["https://raw.githubusercontent.com/argoproj/argo-cd/v3.6.1/manifests/install.yaml"])
	Expect(total).To(Equal(60), "the README says Argo CD's install.yaml holds 60 objects")
	workloads := kinds["Deployment"] + kinds["StatefulSet"]
	Expect(workloads).To(Equal(7), "the README says seven of them wait for a node")
	Eventually(func(g Gomega) {
		set := getSet(ctx, "argocd", "argo-cd")
		g.Expect(set.Status.MemberCount).To(HaveValue(BeEquivalentTo(total)))
		ready := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Reason).To(Equal(applyv1alpha1.ReasonProgressing))
		g.Expect(set.Status.Health).NotTo(BeNil())
		g.Expect(set.Status.Health.Summary).To(Equal("53/60 ready"))
		g.Expect(set.Status.Health.Unhealthy).To(HaveLen(workloads))
		g.Expect(set.Status.Health.Unhealthy).To(HaveEach(HaveField("Kind", BeElementOf("Deployment", "StatefulSet"))))
	}).Should(Succeed())
}

// kubectl itself made a set: its parent Secret carries the ID, its member
// the part-of label.
func checkKubectlSet(ctx context.Context, _ string) {
	parent := &corev1.Secret{}
	Expect(kube.Get(ctx, key("shop", "web"), parent)).To(Succeed())
	Expect(parent.Labels).To(HaveKey(idLabel))
	member := &corev1.ConfigMap{}
	Expect(kube.Get(ctx, key("shop", "web-config"), member)).To(Succeed())
	Expect(member.Labels).To(HaveKeyWithValue(partOfLabel, parent.Labels[idLabel]))
}

// What each verb prints, as the comments and the text after the example
// say; disband leaves the object without the set's labels.
func checkPlugin(ctx context.Context, out string) {
	for what, pattern := range map[string]string{
		"list: the operator's set, its Service's copies not counted": `(?m)^demo\s+applyset\.apply\.applyset\.dev/web\s+applyset-operator/v\S+\s+3\s+<none>\s`,
		"list: the quick start's set":                                `(?m)^default\s+applyset\.apply\.applyset\.dev/hello\s+applyset-operator/v\S+\s+1\s+<none>\s`,
		"list: kubectl's set":                                        `(?m)^shop\s+secret/web\s+kubectl/v\S+\s+1\s+<none>\s+1/1 ready\s`,
		"view: the member and its health":                            `(?m)^ConfigMap\s+shop\s+web-config\s+Current\s`,
		"verify: no findings":                                        `secret/web in namespace shop: no findings, 1 members, health 1/1 ready`,
		"list -o custom-columns: kubectl's set":                      `(?m)^secret/web\s+shop\s+1/1 ready$`,
		"view -o jsonpath: the member's name":                        `(?m)^web-config$`,
		"verify --fix: nothing to fix":                               `secret/web in namespace shop: hints already match its members`,
		"diff -f web.yaml: the operator's set unchanged":             `0 to create, 0 to change, 3 unchanged, 0 to prune`,
		"validate": `web.yaml document 1: ApplySet/web: valid`,
		"disband":  `secret/web in namespace shop disbanded: 1 members released`,
		"delete --dry-run=server: the operator's set's members, previewed": `3 to delete, 0 to release, 0 left alone; nothing was changed`,
	} {
		Expect(out).To(MatchRegexp(pattern), what)
	}
	parent := &corev1.Secret{}
	Expect(kube.Get(ctx, key("shop", "web"), parent)).To(Succeed())
	Expect(parent.Labels).NotTo(HaveKey(idLabel))
	member := &corev1.ConfigMap{}
	Expect(kube.Get(ctx, key("shop", "web-config"), member)).To(Succeed())
	Expect(member.Labels).NotTo(HaveKey(partOfLabel))
}

// The server-side dry run returns the widget without the fields of the
// disabled gates, and stores nothing.
func checkFeatureGates(ctx context.Context, out string) {
	spec := regexp.MustCompile(`(?m)^spec:\n((?:  .*\n?)*)`).FindStringSubmatch(out)
	Expect(spec).NotTo(BeNil(), "no spec in the dry run's output")
	Expect(spec[1]).To(MatchRegexp(`(?m)^  replicas: 2$`))
	Expect(spec[1]).To(MatchRegexp(`(?m)^  storage: 1Gi$`))
	Expect(spec[1]).NotTo(ContainSubstring("autoscaling"))
	Expect(spec[1]).NotTo(ContainSubstring("color"))
	widget := &unstructured.Unstructured{}
	widget.SetAPIVersion("example.com/v1")
	widget.SetKind("Widget")
	err := kube.Get(ctx, key("default", "sample"), widget)
	Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a dry run stored the widget (%v)", err)
}

// The plugin lists the four sample gates, the component they serve, their
// paths, and renders the policies.
func checkFeatureGatesPlugin(_ context.Context, out string) {
	for _, gate := range []string{"WidgetAutoscaling", "WidgetReplicas", "WidgetStorage", "WidgetLegacyColor"} {
		Expect(out).To(MatchRegexp(`(?m)^widgets\.example\.com\s+widgets\s+`+gate+`\s`), gate)
	}
	Expect(out).To(MatchRegexp(`WidgetAutoscaling\s+Alpha\s+<unset>\s+false\s+DefaultOff\s+\.spec\.autoscaling`))
	Expect(out).To(ContainSubstring("kind: MutatingAdmissionPolicy"))
	Expect(out).To(ContainSubstring("name: featuregates.widgets.example.com"))
}

// The API server counted the policy's evaluations of the dry run above, and
// the policy has one mutation per disabled gate's path (autoscaling, color).
func checkPolicyMetrics(_ context.Context, out string) {
	Expect(out).To(MatchRegexp(`(?m)^apiserver_mutating_admission_policy_check_total\{.*policy="featuregates\.widgets\.example\.com".*\} [1-9]`))
	Expect(out).To(MatchRegexp(`(?m)^\s*2\s*$`), "the policy's mutations")
}

// The set waited, naming the ConfigMap it depends on, and applied once the
// ConfigMap said it was enabled.
func checkDependsOnObject(ctx context.Context, out string) {
	Expect(out).To(ContainSubstring("Waiting for what it depends on (spec.dependsOn): ConfigMap demo/reports-settings does not exist"))
	set := getSet(ctx, "demo", "reports")
	ready := readyCondition(set)
	Expect(ready.Status).To(BeEquivalentTo("True"))
	Expect(ready.ObservedGeneration).To(Equal(set.Generation))
	config := &corev1.ConfigMap{}
	Expect(kube.Get(ctx, key("demo", "reports-config"), config)).To(Succeed())
	Expect(config.Labels).To(HaveKeyWithValue(partOfLabel, set.Status.ApplySetID))
}

// The set left kubectl scale's replicas in place, is Ready with reason
// Drifted, names the drift in status.drift, and the diff shows it without
// a change to make.
func checkDriftReport(ctx context.Context, out string) {
	set := getSet(ctx, "audit", "web")
	ready := readyCondition(set)
	Expect(ready.Status).To(BeEquivalentTo("True"))
	Expect(ready.Reason).To(Equal(applyv1alpha1.ReasonDrifted))
	Expect(set.Status.Drift).To(ConsistOf(SatisfyAll(HaveField("Name", "web"), HaveField("Manager", HavePrefix("kubectl")),
		HaveField("Fields", ConsistOf(".spec.replicas")), HaveField("Action", applyv1alpha1.DriftReported))))
	deployment := &appsv1.Deployment{}
	Expect(kube.Get(ctx, key("audit", "web"), deployment)).To(Succeed())
	Expect(deployment.Spec.Replicas).To(HaveValue(BeEquivalentTo(3)))
	Expect(out).To(MatchRegexp(`(?m)^3$`))
	Expect(out).To(ContainSubstring("drift left in place (spec.driftPolicy Report)"))
	Expect(out).To(ContainSubstring("--- declared/apps.v1.Deployment.audit.web"))
	Expect(out).To(ContainSubstring("0 to create, 0 to change, 1 unchanged, 0 to prune, 1 with drift left in place"))
}

// A change of the declaration was applied, and the set is Succeeded again.
func checkDriftDeclared(ctx context.Context, out string) {
	set := getSet(ctx, "audit", "web")
	Expect(readyCondition(set).Reason).To(Equal(applyv1alpha1.ReasonSucceeded))
	deployment := &appsv1.Deployment{}
	Expect(kube.Get(ctx, key("audit", "web"), deployment)).To(Succeed())
	Expect(deployment.Spec.Replicas).To(HaveValue(BeEquivalentTo(2)))
	Expect(out).To(MatchRegexp(`(?m)^2$`))
}

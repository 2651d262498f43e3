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

package install

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/controlplane"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

var _ = Describe("kubectl applyset", Ordered, func() {
	var pluginDir, shop, other string

	BeforeAll(func(ctx context.Context) {
		pluginDir = buildPlugin(ctx)
		shop, other = pluginNamespace(ctx), pluginNamespace(ctx)
		env.StartManager(func(mgr ctrl.Manager) error {
			return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default"})
		})
	})

	run := func(ctx context.Context, stdin string, args ...string) (string, string, int) {
		return runPlugin(ctx, pluginDir, stdin, args...)
	}
	plugin := func(ctx context.Context, stdin string, args ...string) (string, int) {
		stdout, stderr, code := run(ctx, stdin, args...)
		return stdout + stderr, code
	}
	succeeds := func(ctx context.Context, args ...string) string {
		out, code := plugin(ctx, "", args...)
		Expect(code).To(BeZero(), out)
		return out
	}
	kubectl := kubectlSucceeds
	const manifests = `{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {k: v}}
---
{apiVersion: v1, kind: ServiceAccount, metadata: {name: b}}
`
	webID := applyset.ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Name: "web"}

	It("lists and views a set kubectl wrote, as kubectl get -l sees it", func(ctx context.Context) {
		kubectl(ctx, manifests, "apply", "--server-side", "--prune", "--applyset=secret/web", "-n", shop, "-f", "-")
		webID.Namespace = shop
		members := kubectl(ctx, "", "get", "configmaps,serviceaccounts", "-n", shop, "-o", "name", "-l", applyset.PartOfLabel+"="+webID.ID())
		Expect(strings.Fields(members)).To(ConsistOf("configmap/a", "serviceaccount/b"))

		table := succeeds(ctx, "list", "-n", shop)
		Expect(table).To(MatchRegexp(`(?m)^NAME\s+TOOLING\s+MEMBERS\s+FINDINGS\s+HEALTH\s+AGE$`))
		Expect(table).To(MatchRegexp(`(?m)^secret/web\s+` + toolingPattern() + `\s+2\s+<none>\s+2/2 ready\s+`))

		var list struct{ Items []map[string]any }
		stdout, stderr, code := run(ctx, "", "list", "-A", "-o", "json")
		Expect(code).To(BeZero(), stderr)
		Expect(stderr).To(BeEmpty())
		Expect(json.Unmarshal([]byte(stdout), &list)).To(Succeed())
		Expect(list.Items).To(ContainElement(SatisfyAll(HaveKeyWithValue("parent", "secret/web"),
			HaveKeyWithValue("namespace", shop), HaveKeyWithValue("id", webID.ID()), HaveKeyWithValue("members", 2.0),
			HaveKeyWithValue("health", "2/2 ready"), Not(HaveKey("findings")))))

		view := succeeds(ctx, "view", "secret/web", "-n", shop)
		Expect(view).To(ContainSubstring("Tooling:               " + kubectlTooling))
		Expect(view).To(ContainSubstring("Hint kinds:            ConfigMap,ServiceAccount"))
		Expect(view).To(MatchRegexp(`(?m)^ConfigMap\s+` + shop + `\s+a\s+Current\s+applied`))
		Expect(view).To(MatchRegexp(`(?m)^ServiceAccount\s+` + shop + `\s+b\s+Current`))
		Expect(view).To(ContainSubstring("Health:                2/2 ready"))
		Expect(view).To(ContainSubstring("Findings: none"))
		Expect(succeeds(ctx, "verify", "secret/web", "-n", shop)).To(ContainSubstring("secret/web in namespace " + shop + ": no findings, 2 members, health 2/2 ready"))
	})

	It("finds a stale hint, a member out of scope and a copied ID, and exits 1", func(ctx context.Context) {
		kubectl(ctx, "", "annotate", "secret/web", "-n", shop, "--overwrite", applyset.GroupKindsAnnotation+"=ConfigMap")
		kubectl(ctx, "{apiVersion: v1, kind: ConfigMap, metadata: {name: far, labels: {"+applyset.PartOfLabel+": "+webID.ID()+"}}}",
			"apply", "--server-side", "-n", other, "-f", "-")
		kubectl(ctx, "", "create", "configmap", "copy", "-n", other)
		kubectl(ctx, "", "label", "configmap/copy", "-n", other, applyset.IDLabel+"="+webID.ID())

		out, code := plugin(ctx, "", "verify", "-A")
		Expect(code).To(Equal(1), out)
		Expect(out).To(ContainSubstring("secret/web in namespace " + shop + ": HintIncomplete: the hint omits ServiceAccount"))
		Expect(out).To(ContainSubstring("secret/web in namespace " + shop + ": MemberOutOfScope"))
		Expect(out).To(ContainSubstring("ConfigMap " + other + "/far"))
		Expect(out).To(ContainSubstring("configmap/copy in namespace " + other + ": IDMismatch"))
		Expect(out).To(ContainSubstring("secret/web in namespace " + shop + ": 2 findings, 3 members, health 3/3 ready"))

		table, code := plugin(ctx, "", "list", "-n", shop)
		Expect(code).To(BeZero(), table)
		Expect(table).To(MatchRegexp(`(?m)^secret/web\s+` + toolingPattern() + `\s+3\s+HintIncomplete,MemberOutOfScope\s+3/3 ready\s+`))
	})

	It("repairs the hint with --fix under kubectl's field manager, and kubectl's next apply works", func(ctx context.Context) {
		web := client.ObjectKey{Namespace: shop, Name: "web"}
		out, code := plugin(ctx, "", "verify", "secret/web", "-n", shop, "--fix", "--dry-run=server")
		Expect(code).To(Equal(1), out) // a dry run fixes nothing: the findings stay
		Expect(out).To(ContainSubstring("hints rewritten (server dry run)"))
		Expect(parentAnnotation(ctx, web, applyset.GroupKindsAnnotation)).To(Equal("ConfigMap"), "a dry run wrote the hint")

		out, code = plugin(ctx, "y\n", "verify", "secret/web", "-n", shop, "--fix")
		Expect(code).To(Equal(2), out)
		Expect(out).To(ContainSubstring("standard input is not a terminal: give --yes to go ahead; nothing changed"))
		Expect(parentAnnotation(ctx, web, applyset.GroupKindsAnnotation)).To(Equal("ConfigMap"))

		out, code = plugin(ctx, "", "verify", "secret/web", "-n", shop, "--fix", "--yes")
		Expect(code).To(BeZero(), out)
		Expect(out).To(ContainSubstring(`"ConfigMap" -> "ConfigMap,ServiceAccount"`))
		Expect(out).To(ContainSubstring("field manager kubectl-applyset"))
		Expect(parentAnnotation(ctx, web, applyset.GroupKindsAnnotation)).To(Equal("ConfigMap,ServiceAccount"))
		Expect(parentAnnotation(ctx, web, applyset.AdditionalNamespacesAnnotation)).To(Equal(other))
		Expect(succeeds(ctx, "verify", "secret/web", "-n", shop)).To(ContainSubstring("no findings, 3 members, health 3/3 ready"))

		out, code = plugin(ctx, "", "verify", "configmap/copy", "-n", other, "--fix", "--yes")
		Expect(code).To(Equal(1), out) // the copied ID is a finding no rewrite fixes
		Expect(out).To(ContainSubstring("not rewritten: its ID is not its own"))

		By("applying again with kubectl, which prunes across the repaired hint")
		kubectl(ctx, "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {k: v2}}",
			"apply", "--server-side", "--prune", "--applyset=secret/web", "-n", shop, "-f", "-")
		Expect(apierrorsNotFound(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: shop, Name: "b"}})).To(BeTrue())
		Expect(apierrorsNotFound(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: other, Name: "far"}})).To(BeTrue())
	})

	It("disbands a kubectl set: every object stays, no label is left", func(ctx context.Context) {
		web := client.ObjectKey{Namespace: shop, Name: "web"}
		out, code := plugin(ctx, "", "disband", "secret/web", "-n", shop, "--dry-run=server")
		Expect(code).To(BeZero(), out)
		Expect(out).To(ContainSubstring("members released (server dry run)"))
		Expect(parentAnnotation(ctx, web, applyset.GroupKindsAnnotation)).NotTo(BeEmpty(), "a dry run cleared the parent")

		out, code = plugin(ctx, "", "disband", "secret/web", "-n", shop, "--yes")
		Expect(code).To(BeZero(), out)
		cm := &corev1.ConfigMap{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: shop, Name: "a"}, cm)).To(Succeed())
		Expect(cm.Labels).NotTo(HaveKey(applyset.PartOfLabel))
		secret := &corev1.Secret{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: shop, Name: "web"}, secret)).To(Succeed())
		Expect(secret.Labels).NotTo(HaveKey(applyset.IDLabel))
		Expect(secret.Annotations).NotTo(HaveKey(applyset.GroupKindsAnnotation))
		Expect(secret.Annotations).NotTo(HaveKey(applyset.ToolingAnnotation))
		out, code = plugin(ctx, "", "view", "secret/web", "-n", shop)
		Expect(code).To(Equal(2))
		Expect(out).To(ContainSubstring("is not an ApplySet parent"))
	})

	It("lists, views and disbands one of the operator's sets", func(ctx context.Context) {
		ns := pluginNamespace(ctx)
		grantDefault(ctx, ns)
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop"}}
		createReady(ctx, set, "c")

		Expect(succeeds(ctx, "list", "-n", ns)).To(MatchRegexp(`(?m)^applyset\.apply\.applyset\.dev/shop\s+applyset-operator/v0\.1\.0\s+1\s+<none>\s+1/1 ready`))
		view := succeeds(ctx, "view", "applysets.apply.applyset.dev/shop", "-n", ns)
		Expect(view).To(MatchRegexp(`(?m)^ConfigMap\s+` + ns + `\s+c\s+Current\s+recorded`))
		// The set's history, newest first: its first apply, Ready.
		Expect(view).To(MatchRegexp(`(?m)^History:\n\s*LAST RUN\s+RUNS\s+GENERATION\s+RESULT\s+APPLIED\s+PRUNED\s+FAILED\s+TOOK\n\S+\s+\d+\s+1\s+Succeeded\s+1\s+0\s+0\s+\S+`))
		out, code := plugin(ctx, "", "verify", "applyset.apply.applyset.dev/shop", "-n", ns, "--fix", "--yes")
		Expect(code).To(BeZero(), out)
		Expect(out).To(ContainSubstring("not rewritten: the operator keeps the hints of its own sets"))

		Expect(succeeds(ctx, "disband", "applysets.apply.applyset.dev/shop", "-n", ns, "--yes")).To(ContainSubstring("deletionPolicy Orphan"))
		Eventually(func() bool { return apierrorsNotFound(ctx, set) }).Should(BeTrue())
		kept := &corev1.ConfigMap{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "c"}, kept)).To(Succeed())
		Expect(kept.Labels).NotTo(HaveKey(applyset.PartOfLabel))
	})

	It("previews the deletion of one of the operator's sets, then deletes only what the set applied", func(ctx context.Context) {
		ns := pluginNamespace(ctx)
		grantDefault(ctx, ns)
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}
		createReady(ctx, set, "member")
		copied := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "copied",
			Labels: map[string]string{applyset.PartOfLabel: set.Status.ApplySetID}}, Data: map[string]string{"k": "v"}}
		Expect(env.Client.Create(ctx, copied, client.FieldOwner("copying-controller"))).To(Succeed())

		view := succeeds(ctx, "view", "applysets.apply.applyset.dev/web", "-n", ns)
		Expect(view).To(MatchRegexp(`(?m)^ConfigMap\s+` + ns + `\s+member\s+Current\s+recorded`))
		Expect(view).To(MatchRegexp(`(?m)^ConfigMap\s+` + ns + `\s+copied\s+Current\s+label only`))

		out := succeeds(ctx, "delete", "applysets.apply.applyset.dev/web", "-n", ns, "--dry-run=server")
		Expect(out).To(ContainSubstring("delete   ConfigMap " + ns + "/member"))
		Expect(out).To(MatchRegexp(`leave    ConfigMap ` + ns + `/copied: not a member, labelled by copying-controller \(Update\)`))
		Expect(out).To(ContainSubstring("1 to delete, 0 to release, 1 left alone; nothing was changed"))
		Expect(apierrorsNotFound(ctx, set)).To(BeFalse(), "a dry run deleted the set")

		out, code := plugin(ctx, "", "release-finalizers", "applysets.apply.applyset.dev/web", "-n", ns)
		Expect(code).NotTo(BeZero(), out)

		Expect(succeeds(ctx, "delete", "applysets.apply.applyset.dev/web", "-n", ns, "--yes")).To(ContainSubstring("deleted"))
		Eventually(func() bool { return apierrorsNotFound(ctx, set) }).Should(BeTrue())
		Eventually(func() bool {
			return apierrorsNotFound(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "member"}})
		}).
			Should(BeTrue())
		Expect(apierrorsNotFound(ctx, copied)).To(BeFalse(), "deleting the set deleted an object it never applied")
	})

	It("approves the plan a set awaits, after showing it, and no other", func(ctx context.Context) {
		ns := pluginNamespace(ctx)
		grantDefault(ctx, ns)
		cm, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "d"},
			"data": map[string]any{"k": "v"}})
		Expect(err).NotTo(HaveOccurred())
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gated"}}
		set.Spec.Resources, set.Spec.Approval = []applyv1alpha1.Resource{cm}, applyv1alpha1.ApprovalManual
		Expect(env.Client.Create(ctx, set)).To(Succeed())
		reason := func() string {
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			if ready := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady); ready != nil {
				return ready.Reason
			}
			return ""
		}
		Eventually(reason).Should(Equal(applyv1alpha1.ReasonAwaitingApproval))
		digest := set.Status.Plan.Digest

		By("showing the plan as a diff, and approving nothing without a terminal to ask on")
		out, code := plugin(ctx, "y\n", "approve", "aset/gated", "-n", ns)
		Expect(code).To(Equal(2), out)
		Expect(out).To(ContainSubstring("+  k: v"))
		Expect(out).To(ContainSubstring("The preview above is plan " + digest))
		Expect(out).To(ContainSubstring("give --yes to go ahead; nothing changed"))
		Expect(reason()).To(Equal(applyv1alpha1.ReasonAwaitingApproval))
		Expect(set.Spec.ApprovedPlan).To(BeNil())

		By("refusing a digest that is not the one awaited")
		out, code = plugin(ctx, "", "approve", "aset/gated", "-n", ns, "--digest", "sha256:"+strings.Repeat("0", 64), "--yes")
		Expect(code).NotTo(BeZero(), out)
		Expect(out).To(ContainSubstring("awaits approval of " + digest))

		By("asking the API server whether the approval would go through, approving nothing")
		Expect(succeeds(ctx, "approve", "aset/gated", "-n", ns, "--digest", digest, "--dry-run=server")).To(
			ContainSubstring("approved plan " + digest + " (server dry run)"))
		Consistently(reason).WithTimeout(time.Second).Should(Equal(applyv1alpha1.ReasonAwaitingApproval))
		Expect(set.Spec.ApprovedPlan).To(BeNil(), "a dry run approved the plan")

		By("approving it")
		Expect(succeeds(ctx, "approve", "aset/gated", "-n", ns, "-y")).To(ContainSubstring("approved plan " + digest))
		Eventually(reason).Should(Equal(applyv1alpha1.ReasonSucceeded))
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "d"}, &corev1.ConfigMap{})).To(Succeed())
		out, code = plugin(ctx, "", "approve", "aset/gated", "-n", ns, "--yes")
		Expect(code).NotTo(BeZero(), out)
		Expect(out).To(ContainSubstring("no plan awaits approval"))
	})

	It("releases the finalizer of a set being deleted, and touches no member", func(ctx context.Context) {
		ns := pluginNamespace(ctx)
		grantDefault(ctx, ns)
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "stuck", Finalizers: []string{"example.com/other"}}}
		createReady(ctx, set, "member")
		// The set's ServiceAccount loses its rights: the operator cannot release the members and holds the set.
		Expect(env.Client.DeleteAllOf(ctx, &rbacv1.RoleBinding{}, client.InNamespace(ns))).To(Succeed())
		Expect(env.Client.Delete(ctx, set)).To(Succeed())
		Eventually(func() string {
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			return ptr.Deref(apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady), metav1.Condition{}).Reason
		}).Should(Equal(applyv1alpha1.ReasonDeletionBlocked))

		Expect(succeeds(ctx, "release-finalizers", "applysets.apply.applyset.dev/stuck", "-n", ns, "-y")).To(ContainSubstring("1 members stay"))
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		Expect(set.Finalizers).To(Equal([]string{"example.com/other"}), "another controller's finalizer was touched")
		member := &corev1.ConfigMap{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "member"}, member)).To(Succeed())
		Expect(member.Labels).To(HaveKeyWithValue(applyset.PartOfLabel, set.Status.ApplySetID))
	})
})

// createReady creates one of the operator's sets declaring one ConfigMap, and
// waits until it is Ready.
func createReady(ctx context.Context, set *applyv1alpha1.ApplySet, configMap string) {
	GinkgoHelper()
	cm, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": configMap}})
	Expect(err).NotTo(HaveOccurred())
	set.Spec.Resources = []applyv1alpha1.Resource{cm}
	Expect(env.Client.Create(ctx, set)).To(Succeed())
	Eventually(func() bool {
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		return apimeta.IsStatusConditionTrue(set.Status.Conditions, applyv1alpha1.ConditionReady)
	}).Should(BeTrue())
}

// buildPlugin builds kubectl-applyset into a directory of its own, to be put on PATH.
func buildPlugin(ctx context.Context) string {
	GinkgoHelper()
	root, err := controlplane.Root()
	Expect(err).NotTo(HaveOccurred())
	dir := GinkgoT().TempDir()
	build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, "kubectl-applyset"), "./cmd/kubectl-applyset")
	build.Dir = root
	out, err := build.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), string(out))
	return dir
}

// runPlugin runs the plugin the way a user does, through kubectl, found on
// PATH, and returns its standard output, its errors and its exit status.
func runPlugin(ctx context.Context, dir, stdin string, args ...string) (string, string, int) {
	GinkgoHelper()
	cmd := exec.CommandContext(ctx, env.KubectlPath(), append([]string{"applyset", "--kubeconfig", env.Kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	GinkgoWriter.Printf("kubectl applyset %s: stderr: %s\n", strings.Join(args, " "), stderr.String())
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return stdout.String(), stderr.String(), exit.ExitCode()
	}
	Expect(err).NotTo(HaveOccurred(), stderr.String())
	return stdout.String(), stderr.String(), 0
}

// kubectlSucceeds runs kubectl and returns its output.
func kubectlSucceeds(ctx context.Context, stdin string, args ...string) string {
	GinkgoHelper()
	out, err := env.Kubectl(ctx, stdin, args...)
	Expect(err).NotTo(HaveOccurred(), out)
	return out
}

func pluginNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "plugin-"}}
	Expect(env.Client.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

// grantDefault lets the namespace's default ServiceAccount, which the
// operator's sets act as, do anything in it.
func grantDefault(ctx context.Context, ns string) {
	GinkgoHelper()
	Expect(testenv.GrantDefault(ctx, env.Client, ns)).To(Succeed())
}

// parentAnnotation reads an annotation of a Secret parent.
func parentAnnotation(ctx context.Context, parent client.ObjectKey, key string) string {
	GinkgoHelper()
	secret := &corev1.Secret{}
	Expect(env.Client.Get(ctx, parent, secret)).To(Succeed())
	return secret.Annotations[key]
}

func apierrorsNotFound(ctx context.Context, obj client.Object) bool {
	return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj))
}

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
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

var _ = Describe("kubectl applyset diff", Ordered, func() {
	var pluginDir, ns string

	BeforeAll(func(ctx context.Context) {
		pluginDir = buildPlugin(ctx)
		ns = pluginNamespace(ctx)
	})

	// diff runs the plugin's diff and returns its output, its notes and its exit status.
	diff := func(ctx context.Context, stdin string, args ...string) (string, string, int) {
		return runPlugin(ctx, pluginDir, stdin, append([]string{"diff", "-n", ns}, args...)...)
	}
	// versions are the resourceVersions of every ConfigMap, Secret and ServiceAccount of the namespace.
	versions := func(ctx context.Context) map[string]string {
		var list struct {
			Items []struct {
				Kind     string
				Metadata map[string]any
			}
		}
		out := kubectlSucceeds(ctx, "", "get", "configmaps,secrets,serviceaccounts", "-n", ns, "-o", "json")
		Expect(json.Unmarshal([]byte(out), &list)).To(Succeed())
		all := map[string]string{}
		for _, item := range list.Items {
			all[item.Kind+"/"+item.Metadata["name"].(string)] = item.Metadata["resourceVersion"].(string)
		}
		return all
	}

	const applied = `{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {k: v, same: s}}
---
{apiVersion: v1, kind: ServiceAccount, metadata: {name: b}}
---
{apiVersion: v1, kind: Secret, metadata: {name: s}, stringData: {password: one, user: admin}}
`
	const edited = `{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {k: w, same: s}}
---
{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {new: "yes"}}
---
{apiVersion: v1, kind: Secret, metadata: {name: s}, stringData: {password: two, user: admin}}
`

	It("shows nothing for the manifests kubectl applied last", func(ctx context.Context) {
		kubectlSucceeds(ctx, applied, "apply", "--server-side", "--prune", "--applyset=catalog", "-n", ns, "-f", "-")
		stdout, stderr, code := diff(ctx, applied, "-f", "-", "--applyset=catalog", "--prune")
		Expect(code).To(BeZero(), stdout+stderr)
		Expect(stdout).To(BeEmpty())
		Expect(stderr).To(ContainSubstring("0 to create, 0 to change, 3 unchanged, 0 to prune"))
	})

	It("shows edits, creations and prunes as kubectl diff would, and changes nothing", func(ctx context.Context) {
		before := versions(ctx)
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "set.yaml"), []byte(edited), 0o600)).To(Succeed())

		stdout, stderr, code := diff(ctx, "", "-f", dir, "--applyset=secret/catalog", "--prune")
		Expect(code).To(Equal(1), stdout+stderr)
		Expect(stdout).To(ContainSubstring("--- live/v1.ConfigMap." + ns + ".a\n+++ merged/v1.ConfigMap." + ns + ".a\n"))
		Expect(stdout).To(MatchRegexp(`(?m)^-  k: v$`))
		Expect(stdout).To(MatchRegexp(`(?m)^\+  k: w$`))
		Expect(stdout).To(MatchRegexp(`(?m)^\+\+\+ merged/v1\.ConfigMap\.` + ns + `\.c$`))
		Expect(stdout).To(MatchRegexp(`(?m)^\+  new: "yes"$`))
		Expect(stdout).To(MatchRegexp(`(?m)^--- live/v1\.ServiceAccount\.` + ns + `\.b$`))
		Expect(stdout).To(MatchRegexp(`(?m)^-  name: b$`))
		By("masking the Secret's values, and marking the one that changes")
		Expect(stdout).To(MatchRegexp(`(?m)^-  password: '\*\*\* \(before\)'$`))
		Expect(stdout).To(MatchRegexp(`(?m)^\+  password: '\*\*\* \(after\)'$`))
		Expect(stdout).NotTo(ContainSubstring(base64.StdEncoding.EncodeToString([]byte("two"))))
		Expect(stdout).NotTo(ContainSubstring(base64.StdEncoding.EncodeToString([]byte("one"))))
		Expect(stdout).NotTo(ContainSubstring(base64.StdEncoding.EncodeToString([]byte("admin"))))
		Expect(stderr).To(ContainSubstring("1 to create, 2 to change, 0 unchanged, 1 to prune; nothing was changed"))

		Expect(versions(ctx)).To(Equal(before), "the preview wrote to the cluster")

		By("applying the edit with kubectl, after which there is nothing left to show")
		kubectlSucceeds(ctx, edited, "apply", "--server-side", "--prune", "--applyset=catalog", "-n", ns, "-f", "-")
		stdout, stderr, code = diff(ctx, edited, "-f", "-", "--applyset=catalog", "--prune")
		Expect(code).To(BeZero(), stdout+stderr)
		Expect(stdout).To(BeEmpty())
	})

	It("reports a conflict with another applier as a problem, exit status 2", func(ctx context.Context) {
		kubectlSucceeds(ctx, "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {k: theirs}}",
			"apply", "--server-side", "--field-manager=someone-else", "--force-conflicts", "-n", ns, "-f", "-")
		stdout, stderr, code := diff(ctx, edited, "-f", "-", "--applyset=catalog")
		Expect(code).To(Equal(2), stdout+stderr)
		Expect(stderr).To(ContainSubstring("conflict: someone-else applied .data.k with other values"))
		Expect(stderr).To(ContainSubstring("--force-conflicts"))

		stdout, stderr, code = diff(ctx, edited, "-f", "-", "--applyset=catalog", "--force-conflicts")
		Expect(code).To(Equal(1), stdout+stderr)
		Expect(stdout).To(MatchRegexp(`(?m)^\+  k: w$`))
	})

	It("refuses a parent whose ID is a copy, and bad input, with exit status 2", func(ctx context.Context) {
		kubectlSucceeds(ctx, "", "create", "secret", "generic", "copy", "-n", ns)
		id := kubectlSucceeds(ctx, "", "get", "secret", "catalog", "-n", ns, "-o", "jsonpath={.metadata.labels.applyset\\.kubernetes\\.io/id}")
		kubectlSucceeds(ctx, "", "label", "secret/copy", "-n", ns, "applyset.kubernetes.io/id="+id)
		_, stderr, code := diff(ctx, edited, "-f", "-", "--applyset=copy")
		Expect(code).To(Equal(2))
		Expect(stderr).To(ContainSubstring("which is not its own"))

		_, stderr, code = diff(ctx, "{apiVersion: v1, kind: ConfigMap, metadata: {name: x}}\n---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: x}, data: {a: b}}", "-f", "-", "--applyset=catalog")
		Expect(code).To(Equal(2))
		Expect(stderr).To(ContainSubstring("declared twice with different content"))
	})

	It("reads the deprecated hint, leaves objects kubectl did not label, and refuses another tool's parent", func(ctx context.Context) {
		two := `{apiVersion: v1, kind: ConfigMap, metadata: {name: old-a}}
---
{apiVersion: v1, kind: ConfigMap, metadata: {name: old-b}}
`
		kubectlSucceeds(ctx, two, "apply", "--server-side", "--prune", "--applyset=legacy", "-n", ns, "-f", "-")
		// An older kubectl wrote only the resources hint.
		kubectlSucceeds(ctx, "", "annotate", "secret/legacy", "-n", ns, "applyset.kubernetes.io/contains-group-kinds-",
			"applyset.kubernetes.io/contains-group-resources=configmaps")
		id := kubectlSucceeds(ctx, "", "get", "secret", "legacy", "-n", ns, "-o", "jsonpath={.metadata.labels.applyset\\.kubernetes\\.io/id}")
		kubectlSucceeds(ctx, "{apiVersion: v1, kind: ConfigMap, metadata: {name: copied}, data: {k: v}}", "create", "-n", ns, "-f", "-")
		kubectlSucceeds(ctx, "", "label", "configmap/copied", "-n", ns, "applyset.kubernetes.io/part-of="+id)

		_, stderr, code := diff(ctx, "{apiVersion: v1, kind: ConfigMap, metadata: {name: old-a}}", "-f", "-", "--applyset=legacy", "--prune")
		Expect(code).To(Equal(1), stderr)
		Expect(stderr).To(ContainSubstring("1 to prune"), "a member found only through the deprecated hint was not previewed")
		Expect(stderr).To(ContainSubstring("ConfigMap " + ns + "/copied: not pruned, not a member: labelled by kubectl-label (Update)"))

		kubectlSucceeds(ctx, "", "create", "secret", "generic", "helmish", "-n", ns)
		helmID := applyset.ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: ns, Name: "helmish"}.ID()
		kubectlSucceeds(ctx, "", "label", "secret/helmish", "-n", ns, "applyset.kubernetes.io/id="+helmID)
		kubectlSucceeds(ctx, "", "annotate", "secret/helmish", "-n", ns, "applyset.kubernetes.io/tooling=helm/v3.0.0",
			"applyset.kubernetes.io/contains-group-kinds=ConfigMap")
		_, stderr, code = diff(ctx, two, "-f", "-", "--applyset=helmish", "--prune")
		Expect(code).To(Equal(2), stderr)
		Expect(stderr).To(ContainSubstring("kubectl refuses to apply to another tool's set"))
	})

	It("previews what the operator would do with a changed ApplySet", func(ctx context.Context) {
		env.StartManager(func(mgr ctrl.Manager) error {
			return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default"})
		})
		grantDefault(ctx, ns)
		const setYAML = `apiVersion: apply.applyset.dev/v1alpha1
kind: ApplySet
metadata: {name: shop}
spec:
  resources:
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: shop-one}, data: {k: v}}
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: shop-two}, data: {k: v}}
`
		kubectlSucceeds(ctx, setYAML, "apply", "-n", ns, "-f", "-")
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop"}}
		Eventually(func() bool {
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			return apimeta.IsStatusConditionTrue(set.Status.Conditions, applyv1alpha1.ConditionReady)
		}).Should(BeTrue())

		stdout, stderr, code := diff(ctx, setYAML, "-f", "-")
		Expect(code).To(BeZero(), stdout+stderr)
		Expect(stdout).To(BeEmpty())
		Expect(stderr).To(ContainSubstring("add --as=system:serviceaccount:NAMESPACE:NAME"))

		before := versions(ctx)
		changed := `{apiVersion: apply.applyset.dev/v1alpha1, kind: ApplySet, metadata: {name: shop},
  spec: {resources: [{apiVersion: v1, kind: ConfigMap, metadata: {name: shop-one}, data: {k: changed}}]}}`
		stdout, stderr, code = diff(ctx, changed, "-f", "-")
		Expect(code).To(Equal(1), stdout+stderr)
		Expect(stdout).To(MatchRegexp(`(?m)^\+  k: changed$`))
		Expect(stdout).To(MatchRegexp(`(?m)^--- live/v1\.ConfigMap\.` + ns + `\.shop-two$`))
		Expect(stderr).To(ContainSubstring("0 to create, 1 to change, 0 unchanged, 1 to prune"))
		Expect(versions(ctx)).To(Equal(before), "the preview wrote to the cluster")
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop-two"}, &corev1.ConfigMap{})).To(Succeed())
	})

	It("previews no prune of a set whose source was emptied, and says the operator stops it", func(ctx context.Context) {
		env.StartManager(func(mgr ctrl.Manager) error {
			return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default"})
		})
		grantDefault(ctx, ns)
		kubectlSucceeds(ctx, "", "create", "configmap", "shop-source", "-n", ns,
			"--from-literal=app.yaml={apiVersion: v1, kind: ConfigMap, metadata: {name: from-source}, data: {k: v}}")
		const setYAML = `apiVersion: apply.applyset.dev/v1alpha1
kind: ApplySet
metadata: {name: sourced}
spec:
  sources:
  - {kind: ConfigMap, name: shop-source}
`
		kubectlSucceeds(ctx, setYAML, "apply", "-n", ns, "-f", "-")
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sourced"}}
		Eventually(func() *metav1.Condition {
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			return apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
		}).Should(HaveField("Status", metav1.ConditionTrue))

		By("the source emptied by mistake")
		kubectlSucceeds(ctx, "", "patch", "configmap", "shop-source", "-n", ns, "--type=merge", "-p", `{"data": {"app.yaml": ""}}`)
		stdout, stderr, code := diff(ctx, setYAML, "-f", "-")
		Expect(code).To(Equal(2), stdout+stderr)
		Expect(stderr).To(ContainSubstring("the operator would stop ApplySet/sourced (EmptySource)"))
		Expect(stdout+stderr).NotTo(ContainSubstring("from-source"), "the preview showed a prune the operator refuses")

		By("the operator stops the set as the preview said, and the object stays")
		Eventually(func() string {
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			if c := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady); c != nil {
				return c.Reason
			}
			return ""
		}).Should(Equal(applyv1alpha1.ReasonEmptySource))
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "from-source"}, &corev1.ConfigMap{})).To(Succeed())
	})
})

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
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// planned is what a plan does, as `kubectl applyset diff` sums it up and as
// the operator's status.plan counts it: the two must agree.
type planned struct {
	create, change, unchanged, prune int
	// drifted counts the objects whose drift a Report set leaves in place.
	drifted int
	// stop is the reason the operator stops the set for, "" when it goes on.
	stop string
}

// summaryLine is the preview's sum; a set never applied has nothing to prune, and says nothing of it.
var summaryLine = regexp.MustCompile(`(\d+) to create, (\d+) to change, (\d+) unchanged(?:, (\d+) to prune)?(?:, (\d+) with drift left in place)?`)

// previewed reads what the plugin's preview says of a set.
func previewed(stderr string) planned {
	var p planned
	if m := regexp.MustCompile(`the operator would stop \w+/[\w-]+ \((\w+)\)`).FindStringSubmatch(stderr); m != nil {
		p.stop = m[1]
		return p
	}
	m := summaryLine.FindStringSubmatch(stderr)
	Expect(m).NotTo(BeNil(), "the preview summed nothing up: "+stderr)
	n := func(s string) int { i, _ := strconv.Atoi(s); return i }
	p.create, p.change, p.unchanged, p.prune, p.drifted = n(m[1]), n(m[2]), n(m[3]), n(m[4]), n(m[5])
	return p
}

// done reads what the operator did with a set, from its status.
func done(set *applyv1alpha1.ApplySet) planned {
	ready := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
	switch ready.Reason {
	case applyv1alpha1.ReasonSucceeded, applyv1alpha1.ReasonDrifted, applyv1alpha1.ReasonPruneSkipped, applyv1alpha1.ReasonAwaitingApproval, applyv1alpha1.ReasonProgressing,
		applyv1alpha1.ReasonPruning:
	default:
		return planned{stop: ready.Reason}
	}
	c := ptr.Deref(set.Status.Plan.Counts, applyv1alpha1.PlanCounts{})
	n := func(v *int32) int { return int(ptr.Deref(v, 0)) }
	drifted := 0
	for _, d := range set.Status.Drift {
		if d.Action == applyv1alpha1.DriftReported {
			drifted++
		}
	}
	return planned{create: n(c.Create), change: n(c.Update) + n(c.Recreate), unchanged: n(c.Unchanged), prune: n(c.Prune), drifted: drifted}
}

// A differential test of the one pipeline: each case previews a set with the
// plugin, then lets the operator apply the same, and fails on any difference
// between what was previewed and what was done.
var _ = Describe("What the plugin previews is what the operator does", Ordered, func() {
	var pluginDir string
	BeforeAll(func(ctx context.Context) {
		pluginDir = buildPlugin(ctx)
		env.StartManager(func(mgr ctrl.Manager) error {
			return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default"})
		})
	})

	// reconciled waits until the operator has judged the set's generation, and returns it.
	reconciled := func(ctx context.Context, ns, name string) *applyv1alpha1.ApplySet {
		GinkgoHelper()
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		Eventually(func(g Gomega) {
			g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			ready := apimeta.FindStatusCondition(set.Status.Conditions, applyv1alpha1.ConditionReady)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.ObservedGeneration).To(Equal(set.Generation))
			g.Expect(ready.Reason).NotTo(Equal(applyv1alpha1.ReasonDependencyNotReady))
		}).WithTimeout(waitForWork).Should(Succeed())
		return set
	}

	DescribeTable("a set previewed, then applied",
		func(ctx context.Context, prepare func(ctx context.Context, ns string), before string, meanwhile func(ctx context.Context, ns string),
			after string, then func(ctx context.Context, ns string)) {
			ns := pluginNamespace(ctx)
			grantDefault(ctx, ns)
			if prepare != nil {
				prepare(ctx, ns)
			}
			if before != "" {
				kubectlSucceeds(ctx, before, "apply", "--server-side", "-n", ns, "-f", "-")
				reconciled(ctx, ns, "set")
			}
			if meanwhile != nil {
				meanwhile(ctx, ns)
			}
			_, stderr, code := runPlugin(ctx, pluginDir, after, "diff", "-n", ns, "-f", "-")
			Expect(code).To(BeNumerically("<=", 2), stderr)
			preview := previewed(stderr)

			kubectlSucceeds(ctx, after, "apply", "--server-side", "--force-conflicts", "-n", ns, "-f", "-")
			if then != nil {
				then(ctx, ns)
			}
			// What a source's change starts, the operator does a moment later.
			Eventually(func() planned { return done(reconciled(ctx, ns, "set")) }).Should(Equal(preview), "previewed:\n"+stderr)
			// The plugin judges the members' health by the set's own checks, as the operator does.
			if health := reconciled(ctx, ns, "set").Status.Health; health != nil {
				Eventually(func() string { return listedHealth(ctx, pluginDir, ns) }).Should(Equal(health.Summary))
			}
		},
		Entry("a new set", nil, "", nil, set("a", "b"), nil),
		Entry("objects changed, added and removed", nil, set("a", "b"), nil, setWith(map[string]string{"a": "changed", "c": "v"}), nil),
		Entry("an object carrying the set's label that it did not apply", nil, set("a"), labelForeign, setWith(map[string]string{"a": "w"}), nil),
		Entry("members recorded before UIDs were kept", nil, set("a", "b"), forgetUIDs, set("a"), nil),
		Entry("an inventory too large for etcd", nil, "", sourceOf(longNames(5000)), sourced(), nil),
		Entry("a source emptied", sourceOf(oneConfigMap), sourced(), sourceOf(""), sourced(), nil),
		Entry("a source that would decode past its budget", sourceOf(oneConfigMap), sourced(),
			sourceOf(oneConfigMap+"---\n"+testenv.AliasBomb), sourced(), nil),
		Entry("health checks that do not compile", nil, "", nil, withSpec(set("a"), `healthChecks: [{apiVersion: v1, kind: ConfigMap, current: "data.k"}]`), nil),
		Entry("members judged by the set's CEL health checks", nil, "", nil,
			withSpec(setWith(map[string]string{"a": "ready", "b": "starting"}), readyWhenDataSaysSo), nil),
		Entry("a set held for approval", nil, set("a"), nil, withSpec(set("b"), "approval: Manual"), nil),
		Entry("a set waiting for its dependency", dependencyReady(false), "", nil,
			withSpec(set("a"), "dependsOn: [{name: dep}]"), dependencyReady(true)),
		Entry("a Report set leaving an edit in place while it adds an object", nil, withSpec(set("a", "b"), "driftPolicy: Report"),
			editData("a"), withSpec(set("a", "b", "c"), "driftPolicy: Report"), nil),
	)
})

// waitForWork bounds a wait for the operator to do what a spec asked: a
// bound for a hang, not for speed. A set of 5,000 objects under the race
// detector on two busy cores takes more than the default 30 seconds.
const waitForWork = 5 * time.Minute

const oneConfigMap = "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {k: v}}\n"

// readyWhenDataSaysSo is a health check of ConfigMaps that kstatus alone
// would call current: ready only once their k is "ready".
const readyWhenDataSaysSo = `healthChecks: [{apiVersion: v1, kind: ConfigMap, current: "self.data.?k.orValue('') == 'ready'"}]`

// withSpec adds a line to the spec of an ApplySet written by setOf or sourced.
func withSpec(set, line string) string {
	return strings.Replace(set, "spec:\n", "spec:\n  "+line+"\n", 1)
}

// dependencyReady applies the ApplySet "dep", whose one member is healthy
// only when ready is true.
func dependencyReady(ready bool) func(context.Context, string) {
	value := map[bool]string{true: "ready", false: "starting"}[ready]
	return func(ctx context.Context, ns string) {
		dep := strings.Replace(withSpec(setWith(map[string]string{"gate": value}), readyWhenDataSaysSo), "name: set}", "name: dep}", 1)
		kubectlSucceeds(ctx, dep, "apply", "--server-side", "-n", ns, "-f", "-")
	}
}

// listedHealth is the HEALTH `kubectl applyset list` shows for the set "set".
func listedHealth(ctx context.Context, pluginDir, ns string) string {
	GinkgoHelper()
	stdout, stderr, code := runPlugin(ctx, pluginDir, "", "list", "-n", ns, "-o", "json")
	Expect(code).To(BeZero(), stderr)
	var list struct {
		Items []struct{ Parent, Health string }
	}
	Expect(json.Unmarshal([]byte(stdout), &list)).To(Succeed())
	for _, item := range list.Items {
		if strings.HasSuffix(item.Parent, "/set") {
			return item.Health
		}
	}
	Fail("kubectl applyset list does not show the set: " + stdout)
	return ""
}

// set is an ApplySet "set" of ConfigMaps named names, of data k: v.
func set(names ...string) string {
	data := map[string]string{}
	for _, n := range names {
		data[n] = "v"
	}
	return setWith(data)
}

// setWith is an ApplySet "set" of a ConfigMap per name, of data k: value.
func setWith(values map[string]string) string {
	var objs []string
	for _, name := range slices.Sorted(maps.Keys(values)) {
		objs = append(objs, fmt.Sprintf("{apiVersion: v1, kind: ConfigMap, metadata: {name: %s}, data: {k: %s}}\n", name, values[name]))
	}
	return setOf(strings.Join(objs, "---\n"))
}

// setOf is an ApplySet "set" of the objects of manifests.
func setOf(manifests string) string {
	var resources []string
	for _, doc := range strings.Split(manifests, "---\n") {
		resources = append(resources, "  - "+strings.ReplaceAll(strings.TrimSpace(doc), "\n", "\n    "))
	}
	return "apiVersion: apply.applyset.dev/v1alpha1\nkind: ApplySet\nmetadata: {name: set}\nspec:\n  resources:\n" + strings.Join(resources, "\n") + "\n"
}

// sourced is an ApplySet "set" reading the ConfigMap "source".
func sourced() string {
	return "apiVersion: apply.applyset.dev/v1alpha1\nkind: ApplySet\nmetadata: {name: set}\nspec:\n  sources:\n  - {kind: ConfigMap, name: source}\n"
}

// editData changes the ConfigMap name with a merge patch, as kubectl edit would.
func editData(name string) func(context.Context, string) {
	return func(ctx context.Context, ns string) {
		kubectlSucceeds(ctx, "", "patch", "configmap", name, "-n", ns, "--type=merge", "-p", `{"data":{"k":"edited"}}`)
	}
}

// labelForeign labels a ConfigMap the set never applied with its ID.
func labelForeign(ctx context.Context, ns string) {
	id := applyset.ParentKey{GroupKind: applyv1alpha1.GroupVersion.WithKind("ApplySet").GroupKind(), Namespace: ns, Name: "set"}.ID()
	kubectlSucceeds(ctx, "", "create", "configmap", "foreign", "-n", ns)
	kubectlSucceeds(ctx, "", "label", "configmap", "foreign", "-n", ns, applyset.PartOfLabel+"="+id)
}

// forgetUIDs writes the set's inventory as the operator wrote it before it
// kept UIDs.
func forgetUIDs(ctx context.Context, ns string) {
	set := &applyv1alpha1.ApplySet{}
	Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "set"}, set)).To(Succeed())
	for i := range set.Status.Members {
		set.Status.Members[i].UID = ""
	}
	Expect(env.Client.Status().Update(ctx, set)).To(Succeed())
}

// sourceOf writes manifests, compressed, into the ConfigMap "source".
func sourceOf(manifests string) func(context.Context, string) {
	return func(ctx context.Context, ns string) {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		_, _ = w.Write([]byte(manifests))
		Expect(w.Close()).To(Succeed())
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "source"}}
		_, err := ctrl.CreateOrUpdate(ctx, env.Client, cm, func() error {
			cm.Data, cm.BinaryData = nil, map[string][]byte{"all.yaml": b.Bytes()}
			return nil
		})
		Expect(err).NotTo(HaveOccurred())
	}
}

func longNames(n int) string {
	var docs strings.Builder
	for i := range n {
		fmt.Fprintf(&docs, "{apiVersion: v1, kind: ConfigMap, metadata: {name: %s-%04d}}\n---\n", strings.Repeat("n", 248), i)
	}
	return docs.String()
}

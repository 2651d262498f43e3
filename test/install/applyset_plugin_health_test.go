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
	"fmt"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

var _ = Describe("kubectl applyset health", Ordered, func() {
	var pluginDir string

	BeforeAll(func(ctx context.Context) {
		pluginDir = buildPlugin(ctx)
	})

	succeeds := func(ctx context.Context, args ...string) string {
		GinkgoHelper()
		stdout, stderr, code := runPlugin(ctx, pluginDir, "", args...)
		Expect(code).To(BeZero(), stdout+stderr)
		return stdout + stderr
	}
	kubectl := kubectlSucceeds

	It("keeps the contract's findings apart from the members' health while a Deployment rolls out", func(ctx context.Context) {
		ns := pluginNamespace(ctx)
		const rollout = `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {selector: {matchLabels: {app: web}},
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}}
---
{apiVersion: v1, kind: ConfigMap, metadata: {name: config}, data: {k: v}}
`
		kubectl(ctx, rollout, "apply", "--server-side", "--prune", "--applyset=secret/roll", "-n", ns, "-f", "-")

		// A second set in the namespace, all ready: each set's line shows its own members' health.
		const calm = `{apiVersion: v1, kind: ConfigMap, metadata: {name: calm-a}}
---
{apiVersion: v1, kind: ConfigMap, metadata: {name: calm-b}}
`
		kubectl(ctx, calm, "apply", "--server-side", "--prune", "--applyset=secret/calm", "-n", ns, "-f", "-")

		// No controller rolls the Deployment out in this API server: it stays InProgress.
		Expect(succeeds(ctx, "list", "-n", ns)).To(And(
			MatchRegexp(`(?m)^secret/roll\s+`+toolingPattern()+`\s+2\s+<none>\s+1/2 ready\s+`),
			MatchRegexp(`(?m)^secret/calm\s+`+toolingPattern()+`\s+2\s+<none>\s+2/2 ready\s+`)))
		Expect(succeeds(ctx, "verify", "-n", ns)).To(And(
			ContainSubstring("secret/roll in namespace "+ns+": no findings, 2 members, health 1/2 ready"),
			ContainSubstring("secret/calm in namespace "+ns+": no findings, 2 members, health 2/2 ready")))
		Expect(succeeds(ctx, "view", "secret/roll", "-n", ns)).To(And(ContainSubstring("Health:                1/2 ready"),
			MatchRegexp(`(?m)^Deployment\.apps\s+`+ns+`\s+web\s+InProgress`), ContainSubstring("Findings: none")))
		Expect(succeeds(ctx, "verify", "secret/roll", "-n", ns)).To(ContainSubstring("secret/roll in namespace " + ns + ": no findings, 2 members, health 1/2 ready"))
	})

	It("reads a resource's many members with one list, not a GET each, and judges each by name", func(ctx context.Context) {
		ns := pluginNamespace(ctx)
		var manifests strings.Builder
		for i := range 20 {
			fmt.Fprintf(&manifests, "{apiVersion: v1, kind: ConfigMap, metadata: {name: config-%d}}\n---\n", i)
		}
		for i := range 16 {
			fmt.Fprintf(&manifests, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web-%d}, spec: {selector: {matchLabels: {app: web}},
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}}
---
`, i)
		}
		manifests.WriteString("{apiVersion: v1, kind: ServiceAccount, metadata: {name: few}}\n")
		kubectl(ctx, manifests.String(), "apply", "--server-side", "--prune", "--applyset=secret/many", "-n", ns, "-f", "-")

		gets := func() map[string]float64 {
			totals, err := testenv.RequestTotals(ctx, env.Config)
			Expect(err).NotTo(HaveOccurred())
			out := map[string]float64{}
			for _, t := range totals {
				if t.Labels["verb"] == "GET" && t.Labels["subresource"] == "" {
					out[t.Labels["resource"]] += t.Value
				}
			}
			return out
		}
		before := gets()
		// No controller rolls the Deployments out in this API server: 21 of 37 are ready.
		Expect(succeeds(ctx, "list", "-n", ns)).To(MatchRegexp(`(?m)^secret/many\s+` + toolingPattern() + `\s+37\s+<none>\s+21/37 ready\s+`))
		view := succeeds(ctx, "view", "secret/many", "-n", ns)
		after := gets()
		Expect(after["configmaps"]-before["configmaps"]).To(BeNumerically("<", 20), "the ConfigMaps were read one by one")
		Expect(after["deployments"]-before["deployments"]).To(BeNumerically("<", 16), "the Deployments were read one by one")
		Expect(view).To(And(MatchRegexp(`(?m)^ConfigMap\s+`+ns+`\s+config-7\s+Current`),
			MatchRegexp(`(?m)^Deployment\.apps\s+`+ns+`\s+web-3\s+InProgress`),
			MatchRegexp(`(?m)^ServiceAccount\s+`+ns+`\s+few\s+Current`),
			ContainSubstring("Health:                21/37 ready")))

		// A page of the table: five rows, and the health of those five alone, Deployments
		// none of which is ready, judged and said so.
		page := succeeds(ctx, "view", "secret/many", "-n", ns, "--offset=30", "--limit=5")
		Expect(regexp.MustCompile(`(?m)^(ConfigMap|Deployment\.apps|ServiceAccount)\s+`+ns+`\s`).FindAllString(page, -1)).To(HaveLen(5))
		Expect(page).To(And(ContainSubstring("Health:                0/5 ready (judged 5 of 37)"),
			ContainSubstring("Members 31 to 35 of 37 listed; --offset=35 for the next ones.")))
	})

	It("judges members of kinds with no status by the metadata it listed, reading none of them", func(ctx context.Context) {
		ns := pluginNamespace(ctx)
		var manifests strings.Builder
		// Fewer than listMembersAt: members of a kind with a status would each be read with a GET.
		for i := range 12 {
			fmt.Fprintf(&manifests, "{apiVersion: v1, kind: ServiceAccount, metadata: {name: account-%d}}\n---\n", i)
		}
		manifests.WriteString(`{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {selector: {matchLabels: {app: web}},
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}}
`)
		kubectl(ctx, manifests.String(), "apply", "--server-side", "--prune", "--applyset=secret/accounts", "-n", ns, "-f", "-")
		// One ServiceAccount is being deleted, held by a finalizer: its metadata says so.
		held := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "account-0"}}
		Expect(env.Client.Patch(ctx, held, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":["example.com/hold"]}}`)))).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(client.IgnoreNotFound(env.Client.Patch(ctx, held, client.RawPatch(types.MergePatchType,
				[]byte(`{"metadata":{"finalizers":null}}`))))).To(Succeed())
		})
		Expect(env.Client.Delete(ctx, held)).To(Succeed())

		gets := func() float64 {
			totals, err := testenv.RequestTotals(ctx, env.Config)
			Expect(err).NotTo(HaveOccurred())
			var n float64
			for _, t := range totals {
				if t.Labels["verb"] == "GET" && t.Labels["resource"] == "serviceaccounts" && t.Labels["subresource"] == "" {
					n += t.Value
				}
			}
			return n
		}
		before := gets()
		view := succeeds(ctx, "view", "secret/accounts", "-n", ns)
		// Other specs' sets may read a ServiceAccount meanwhile, never twelve.
		Expect(gets()-before).To(BeNumerically("<", 12), "the ServiceAccounts were read one by one")
		Expect(view).To(And(MatchRegexp(`(?m)^ServiceAccount\s+`+ns+`\s+account-7\s+Current`),
			MatchRegexp(`(?m)^ServiceAccount\s+`+ns+`\s+account-0\s+Terminating`),
			MatchRegexp(`(?m)^Deployment\.apps\s+`+ns+`\s+web\s+InProgress`),
			ContainSubstring("Health:                11/13 ready")))
	})
})

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

package validation

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

const (
	required     = metav1.CauseTypeFieldValueRequired
	invalid      = metav1.CauseTypeFieldValueInvalid
	forbidden    = metav1.CauseTypeForbidden
	notSupported = metav1.CauseTypeFieldValueNotSupported
	duplicate    = metav1.CauseTypeFieldValueDuplicate
	tooMany      = metav1.CauseTypeTooMany
	tooLong      = metav1.CauseTypeTooLong
)

const scopePolicy = "applyset-namespace-scope"

// configMap is an inline ConfigMap resource with extra metadata fields.
func configMap(name, metadata string) string {
	if metadata != "" {
		metadata = ", " + metadata
	}
	return fmt.Sprintf("{apiVersion: v1, kind: ConfigMap, metadata: {name: %s%s}, data: {k: v}}", name, metadata)
}

var _ = Describe("ApplySet validation", func() {
	BeforeEach(func(ctx context.Context) {
		// The admission policy takes effect shortly after it is created.
		Eventually(func(ctx context.Context) error {
			return dryRunCreate(ctx, applySet("{resources: ["+configMap("probe", "namespace: elsewhere")+"]}"))
		}).WithContext(ctx).Should(HaveOccurred(), "the namespace-scope policy never took effect")
	})

	DescribeTable("rules", func(ctx context.Context, manifest string, want *rejection) {
		expectBoth(ctx, manifest, want)
	},
		Entry("a complete spec is accepted", applySet(`{
			resources: [`+configMap("a", "")+`, `+configMap("b", "namespace: "+other+", labels: {app: b}")+`],
			sources: [{kind: ConfigMap, name: manifests, key: app.yaml}, {kind: Secret, name: secret-manifests}],
			prune: false, dryRun: true, force: true, additionalNamespaces: [`+other+`],
			deletionPolicy: Orphan, serviceAccountName: deployer, interval: 1h30m, suspend: true}`), accepted),
		Entry("an empty spec is accepted", applySet("{}"), accepted),
		Entry("1,000 inline resources are accepted",
			applySet("{resources: ["+repeat(1000, func(i int) string { return configMap(fmt.Sprintf("cm-%d", i), "") })+"]}"),
			accepted),

		// Inline resources.
		Entry("a resource needs apiVersion",
			applySet("{resources: [{kind: ConfigMap, metadata: {name: a}}]}"),
			rejected("spec.resources[0].apiVersion", required, "Required value")),
		Entry("a resource needs kind",
			applySet("{resources: [{apiVersion: v1, metadata: {name: a}}]}"),
			rejected("spec.resources[0].kind", required, "Required value")),
		Entry("a resource needs metadata",
			applySet("{resources: [{apiVersion: v1, kind: ConfigMap}]}"),
			rejected("spec.resources[0].metadata", required, "Required value")),
		Entry("a resource needs metadata.name",
			applySet("{resources: [{apiVersion: v1, kind: ConfigMap, metadata: {labels: {a: b}}}]}"),
			rejected("spec.resources[0].metadata.name", required, "Required value")),
		Entry("a Secret is not written inline, where namespace viewers would read its data",
			applySet("{resources: [{apiVersion: v1, kind: Secret, metadata: {name: s}, stringData: {password: hunter2}}]}"),
			rejected("spec.resources[0].kind", forbidden, "a Secret is not written inline")),
		Entry("nor in a ClusterApplySet",
			clusterApplySet("{serviceAccountNamespace: "+home+", serviceAccountName: deployer, resources: ["+configMap("a", "namespace: "+home)+
				", {apiVersion: v1, kind: Secret, metadata: {name: s, namespace: "+home+"}, data: {k: dg==}}]}"),
			rejected("spec.resources[1].kind", forbidden, "put its manifest in a Secret and name that in spec.sources")),
		Entry("a kind called Secret in another group is no core Secret, and is accepted",
			applySet("{resources: [{apiVersion: vault.example.com/v1, kind: Secret, metadata: {name: s}}]}"),
			accepted),
		Entry("a resource may not use generateName",
			applySet("{resources: ["+configMap("a", "generateName: a-")+"]}"),
			rejected("spec.resources[0].metadata.generateName", forbidden, "give the object a fixed metadata.name")),
		Entry("a resource may not carry the part-of label",
			applySet("{resources: ["+configMap("a", "labels: {applyset.kubernetes.io/part-of: applyset-x-v1}")+"]}"),
			rejected("spec.resources[0].metadata.labels", forbidden, "remove the applyset.kubernetes.io/part-of label")),
		Entry("a resource's namespace is a DNS-1123 label",
			applySet("{resources: ["+configMap("a", "namespace: Team_A")+"]}"),
			rejected("spec.resources[0].metadata.namespace", invalid, "should match")),
		Entry("at most 1,024 inline resources",
			applySet("{resources: ["+repeat(1025, func(i int) string { return configMap(fmt.Sprintf("cm-%d", i), "") })+"]}"),
			rejected("spec.resources", tooMany, "must have at most 1024 items")),

		// The namespace scope of a namespaced ApplySet (admission policy).
		Entry("a resource in the ApplySet's namespace is accepted",
			applySet("{resources: ["+configMap("a", "namespace: "+home)+"]}"), accepted),
		Entry("a resource in another namespace needs additionalNamespaces",
			applySet("{resources: ["+configMap("a", "namespace: "+other)+"]}"),
			deniedByPolicy(scopePolicy, "ConfigMap team-b/a lie outside the ApplySet's namespaces (team-a); "+
				"add the namespace to spec.additionalNamespaces or use a ClusterApplySet")),

		// Sources.
		Entry("a source's kind is ConfigMap or Secret",
			applySet("{sources: [{kind: Deployment, name: manifests}]}"),
			rejected("spec.sources[0].kind", notSupported, `supported values: "ConfigMap", "Secret"`)),
		Entry("a source needs a name",
			applySet("{sources: [{kind: ConfigMap}]}"),
			rejected("spec.sources[0].name", required, "a ConfigMap or Secret source needs a name")),
		Entry("a source's name is a DNS-1123 subdomain",
			applySet("{sources: [{kind: ConfigMap, name: My_Manifests}]}"),
			rejected("spec.sources[0].name", invalid, "should match")),
		Entry("a source's key is a valid data key",
			applySet("{sources: [{kind: ConfigMap, name: m, key: 'a/b'}]}"),
			rejected("spec.sources[0].key", invalid, "should match")),
		Entry("an oci source by tag, with a path, is accepted",
			applySet("{sources: [{oci: {url: oci://registry.example.com/team/app, tag: v1.2.0}, path: overlays/prod}]}"), accepted),
		Entry("an oci source pinned by digest, with credentials, is accepted", applySet("{sources: [{oci: {url: oci://127.0.0.1:5000/app, "+
			"digest: 'sha256:"+strings.Repeat("0a", 32)+"', secretRef: {name: pull}, caSecretRef: {name: ca}, insecure: true}}]}"), accepted),
		Entry("a source is a ConfigMap, a Secret, an oci artifact or a flux source",
			applySet("{sources: [{name: manifests}]}"),
			rejected("spec.sources[0]", invalid, "a source is either kind and name (with key), oci or flux (with path)")),
		Entry("a source is not both a ConfigMap and an oci artifact",
			applySet("{sources: [{kind: ConfigMap, name: m, oci: {url: oci://registry.example.com/app, tag: v1}}]}"),
			rejected("spec.sources[0]", invalid, "a source is either kind and name (with key), oci or flux (with path)")),
		Entry("a source is not both an oci artifact and a flux source",
			applySet("{sources: [{oci: {url: oci://registry.example.com/app, tag: v1}, flux: {kind: OCIRepository, name: app}}]}"),
			rejected("spec.sources[0]", invalid, "a source is either kind and name (with key), oci or flux (with path)")),
		Entry("an oci source has no key",
			applySet("{sources: [{key: app.yaml, oci: {url: oci://registry.example.com/app, tag: v1}}]}"),
			rejected("spec.sources[0]", forbidden, "an oci source has no name or key")),
		Entry("a ConfigMap source has no path",
			applySet("{sources: [{kind: ConfigMap, name: m, path: overlays/prod}]}"),
			rejected("spec.sources[0].path", forbidden, "path is a directory of an oci or flux source's artifact")),
		Entry("an oci source names a tag or a digest",
			applySet("{sources: [{oci: {url: oci://registry.example.com/app}}]}"),
			rejected("spec.sources[0].oci", required, "an oci source names a tag, a digest, or both")),
		Entry("an oci source's path stays inside the artifact",
			applySet("{sources: [{oci: {url: oci://registry.example.com/app, tag: v1}, path: overlays/../../etc}]}"),
			rejected("spec.sources[0].path", forbidden, "path stays inside the artifact: no .. element")),
		Entry("an oci source's path is relative",
			applySet("{sources: [{oci: {url: oci://registry.example.com/app, tag: v1}, path: /etc}]}"),
			rejected("spec.sources[0].path", invalid, "should match")),
		Entry("an oci source's url holds no tag",
			applySet("{sources: [{oci: {url: 'oci://registry.example.com/app:v1', tag: v1}}]}"),
			rejected("spec.sources[0].oci.url", invalid, "should match")),
		Entry("a flux source of each kind, with a path, is accepted",
			applySet("{sources: [{flux: {kind: GitRepository, name: app}, path: overlays/prod}, {flux: {kind: OCIRepository, name: app}}, "+
				"{flux: {kind: ExternalArtifact, name: rendered.app}, path: deploy}]}"), accepted),
		Entry("a flux source's kind is a Flux source kind that serves an artifact of manifests",
			applySet("{sources: [{flux: {kind: HelmChart, name: app}}]}"),
			rejected("spec.sources[0].flux.kind", notSupported, `supported values: "GitRepository", "OCIRepository", "ExternalArtifact"`)),
		Entry("a flux source names its kind",
			applySet("{sources: [{flux: {name: app}}]}"),
			rejected("spec.sources[0].flux.kind", required, "Required value")),
		Entry("a flux source names its object",
			applySet("{sources: [{flux: {kind: GitRepository}}]}"),
			rejected("spec.sources[0].flux.name", required, "Required value")),
		Entry("a flux source's name is a DNS-1123 subdomain",
			applySet("{sources: [{flux: {kind: GitRepository, name: My_App}}]}"),
			rejected("spec.sources[0].flux.name", invalid, "should match")),
		Entry("a flux source has no name besides its object's",
			applySet("{sources: [{name: other, flux: {kind: GitRepository, name: app}}]}"),
			rejected("spec.sources[0]", forbidden, "a flux source has no name or key")),
		Entry("a flux source has no key",
			applySet("{sources: [{key: app.yaml, flux: {kind: GitRepository, name: app}}]}"),
			rejected("spec.sources[0]", forbidden, "a flux source has no name or key")),
		Entry("a flux source's path stays inside the artifact",
			applySet("{sources: [{flux: {kind: GitRepository, name: app}, path: ../secrets}]}"),
			rejected("spec.sources[0].path", forbidden, "path stays inside the artifact: no .. element")),
		Entry("at most 32 sources",
			applySet("{sources: ["+repeat(33, func(i int) string { return fmt.Sprintf("{kind: ConfigMap, name: m%d}", i) })+"]}"),
			rejected("spec.sources", tooMany, "must have at most 32 items")),

		// Options.
		Entry("additionalNamespaces is a set",
			applySet("{additionalNamespaces: [team-b, team-b]}"),
			rejected("spec.additionalNamespaces[1]", duplicate, `Duplicate value: "team-b"`)),
		Entry("additionalNamespaces are DNS-1123 labels",
			applySet("{additionalNamespaces: [Team.B]}"),
			rejected("spec.additionalNamespaces[0]", invalid, "should match")),
		Entry("at most 16 additionalNamespaces, what admission can check the author's rights in",
			applySet("{additionalNamespaces: ["+repeat(17, func(i int) string { return fmt.Sprintf("ns-%d", i) })+"]}"),
			rejected("spec.additionalNamespaces", tooMany, "must have at most 16 items")),
		Entry("deletionPolicy is Delete or Orphan",
			applySet("{deletionPolicy: Keep}"),
			rejected("spec.deletionPolicy", notSupported, `supported values: "Delete", "Orphan"`)),
		Entry("an approval and the digest of an approved plan are accepted",
			applySet("{approval: Manual, approvedPlan: 'sha256:"+strings.Repeat("0a", 32)+"'}"), accepted),
		Entry("an empty approvedPlan approves nothing and is accepted", applySet("{approval: Prune, approvedPlan: ''}"), accepted),
		Entry("driftPolicy Report is accepted, with Manual approval too (an audit)",
			applySet("{driftPolicy: Report, approval: Manual}"), accepted),
		Entry("driftPolicy is Correct or Report",
			applySet("{driftPolicy: Ignore}"),
			rejected("spec.driftPolicy", notSupported, `supported values: "Correct", "Report"`)),
		Entry("approval is Auto, Manual or Prune",
			applySet("{approval: Later}"),
			rejected("spec.approval", notSupported, `supported values: "Auto", "Manual", "Prune"`)),
		Entry("approvedPlan is a sha256 digest",
			applySet("{approvedPlan: 'md5:0a0a'}"),
			rejected("spec.approvedPlan", invalid, "should match")),
		Entry("approvedPlan is no longer than a sha256 digest",
			applySet("{approvedPlan: 'sha256:"+strings.Repeat("0a", 33)+"'}"),
			rejected("spec.approvedPlan", tooLong, "may not be more than 71")),
		Entry("serviceAccountName is a DNS-1123 subdomain",
			applySet("{serviceAccountName: Deployer}"),
			rejected("spec.serviceAccountName", invalid, "should match")),
		Entry("serviceAccountName is not empty when given",
			applySet("{serviceAccountName: ''}"),
			rejected("spec.serviceAccountName", invalid, "should be at least 1 chars long")),
		Entry("additionalNamespaces are at most 63 characters",
			applySet("{additionalNamespaces: ["+strings.Repeat("n", 64)+"]}"),
			rejected("spec.additionalNamespaces[0]", tooLong, "may not be more than 63")),
		Entry("a resource's namespace is not empty when given",
			applySet("{resources: ["+configMap("a", "namespace: ''")+"]}"),
			rejected("spec.resources[0].metadata.namespace", invalid, "should be at least 1 chars long")),
		Entry("serviceAccountName is at most 253 characters",
			applySet("{serviceAccountName: "+strings.Repeat("a", 254)+"}"),
			rejected("spec.serviceAccountName", tooLong, "may not be more than 253")),
		Entry("interval is a duration",
			applySet("{interval: ten minutes}"),
			rejected("spec.interval", invalid, "should match")),
		Entry("interval is positive",
			applySet("{interval: 0s}"),
			rejected("spec.interval", invalid, "interval must be at least 1s")),
		Entry("interval is at least a second: a nanosecond would requeue without pause",
			applySet("{interval: 1ns}"),
			rejected("spec.interval", invalid, "interval must be at least 1s")),
		Entry("interval is at least a second, however it is written",
			applySet("{interval: 999ms}"),
			rejected("spec.interval", invalid, "interval must be at least 1s")),
		Entry("an interval of a second is accepted: the operator's --min-interval floors it",
			applySet("{interval: 1s}"),
			accepted),

		// Fields left to other writers.
		Entry("ignoreFields naming a kind and paths are accepted",
			applySet("{ignoreFields: [{group: apps, kind: Deployment, name: web, namespace: team-a, paths: [.spec.replicas, .spec.template.metadata.annotations]}]}"),
			accepted),
		Entry("an ignoreFields rule names a kind",
			applySet("{ignoreFields: [{paths: [.spec.replicas]}]}"),
			rejected("spec.ignoreFields[0].kind", required, "Required value")),
		Entry("an ignoreFields rule names a path",
			applySet("{ignoreFields: [{kind: Deployment, paths: []}]}"),
			rejected("spec.ignoreFields[0].paths", invalid, "should have at least 1 items")),
		Entry("an ignored path starts with a dot and names fields",
			applySet("{ignoreFields: [{kind: Deployment, paths: [spec.replicas]}]}"),
			rejected("spec.ignoreFields[0].paths[0]", invalid, "should match")),
		Entry("an ignored path is not under .metadata",
			applySet("{ignoreFields: [{kind: Deployment, paths: [.metadata.labels]}]}"),
			rejected("spec.ignoreFields[0].paths[0]", forbidden, "cannot be left to others")),
		// Dependencies.
		Entry("dependencies on an ApplySet and a ClusterApplySet are accepted",
			applySet("{dependsOn: [{name: platform}, {name: db, namespace: team-b}, {kind: ClusterApplySet, name: crds}]}"), accepted),
		Entry("a ClusterApplySet dependency has no namespace",
			applySet("{dependsOn: [{kind: ClusterApplySet, name: crds, namespace: team-a}]}"),
			rejected("spec.dependsOn[0].namespace", forbidden, "a ClusterApplySet has no namespace")),
		Entry("without apiVersion, a dependency's kind is ApplySet or ClusterApplySet",
			applySet("{dependsOn: [{kind: Kustomization, name: x}]}"),
			rejected("spec.dependsOn[0].kind", invalid, "without apiVersion, kind is ApplySet or ClusterApplySet")),
		Entry("dependencies on any object, with and without readyExpr, are accepted",
			applySet(`{dependsOn: [{apiVersion: cert-manager.io/v1, kind: Certificate, name: web-tls,
				readyExpr: "self.status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')"},
				{apiVersion: apps/v1, kind: Deployment, name: db, namespace: team-b}, {apiVersion: v1, kind: Namespace, name: team-b}]}`),
			accepted),
		Entry("an object named by apiVersion needs its kind",
			applySet("{dependsOn: [{apiVersion: v1, name: x}]}"),
			rejected("spec.dependsOn[0].kind", required, "an object named by apiVersion needs its kind")),
		Entry("a set is judged by its Ready condition, not by readyExpr",
			applySet("{dependsOn: [{name: platform, readyExpr: 'true'}]}"),
			rejected("spec.dependsOn[0].readyExpr", forbidden, "readyExpr judges an object named by apiVersion")),
		Entry("a dependency's apiVersion is group/version",
			applySet("{dependsOn: [{apiVersion: 'cert-manager.io/v1/x', kind: Certificate, name: x}]}"),
			rejected("spec.dependsOn[0].apiVersion", invalid, "should match")),
		Entry("a dependency's apiVersion has a bounded length",
			applySet("{dependsOn: [{apiVersion: "+strings.Repeat("a", 318)+", kind: Certificate, name: x}]}"),
			rejected("spec.dependsOn[0].apiVersion", tooLong, "may not be more than 317")),
		Entry("a dependency's kind is a kind's name",
			applySet("{dependsOn: [{apiVersion: v1, kind: 'Config-Map', name: x}]}"),
			rejected("spec.dependsOn[0].kind", invalid, "should match")),
		Entry("a dependency's kind has a bounded length",
			applySet("{dependsOn: [{apiVersion: v1, kind: "+strings.Repeat("K", 64)+", name: x}]}"),
			rejected("spec.dependsOn[0].kind", tooLong, "may not be more than 63")),
		Entry("a readyExpr has a bounded length",
			applySet("{dependsOn: [{apiVersion: v1, kind: ConfigMap, name: x, readyExpr: '"+strings.Repeat("t", 4097)+"'}]}"),
			rejected("spec.dependsOn[0].readyExpr", tooLong, "may not be more than 4096")),
		Entry("a readyExpr is not empty",
			applySet("{dependsOn: [{apiVersion: v1, kind: ConfigMap, name: x, readyExpr: ''}]}"),
			rejected("spec.dependsOn[0].readyExpr", invalid, "should be at least 1")),
		Entry("a set depends on at most 32 things",
			applySet("{dependsOn: ["+repeat(33, func(i int) string { return fmt.Sprintf("{name: s%d}", i) })+"]}"),
			rejected("spec.dependsOn", tooMany, "must have at most 32 items")),

		// Delivery windows.
		Entry("allow and deny windows are accepted",
			applySet(`{windows: [{kind: Allow, schedule: "0 9 * * 1-5", duration: 8h, timeZone: Europe/Berlin},
				{kind: Deny, schedule: "@daily", duration: 744h}, {kind: Deny, schedule: "0 22 * * 5", duration: 58h, timeZone: America/Argentina/Buenos_Aires}]}`),
			accepted),
		Entry("a window's kind is Allow or Deny",
			applySet(`{windows: [{kind: Freeze, schedule: "@daily", duration: 1h}]}`),
			rejected("spec.windows[0].kind", notSupported, `supported values: "Allow", "Deny"`)),
		Entry("a window has a kind",
			applySet(`{windows: [{schedule: "@daily", duration: 1h}]}`),
			rejected("spec.windows[0].kind", required, "Required value")),
		Entry("a window has a schedule",
			applySet(`{windows: [{kind: Deny, duration: 1h}]}`),
			rejected("spec.windows[0].schedule", required, "Required value")),
		Entry("a window's schedule is not shorter than a cron expression",
			applySet(`{windows: [{kind: Deny, schedule: "* *", duration: 1h}]}`),
			rejected("spec.windows[0].schedule", invalid, "should be at least 5 chars long")),
		Entry("a window's schedule is bounded",
			applySet(`{windows: [{kind: Deny, schedule: "`+strings.Repeat("0,", 64)+`0 * * * *", duration: 1h}]}`),
			rejected("spec.windows[0].schedule", tooLong, "may not be more than 128")),
		Entry("a window has a duration",
			applySet(`{windows: [{kind: Deny, schedule: "@daily"}]}`),
			rejected("spec.windows[0].duration", required, "Required value")),
		Entry("a window's duration is a duration",
			applySet(`{windows: [{kind: Deny, schedule: "@daily", duration: "2 days"}]}`),
			rejected("spec.windows[0].duration", invalid, "should match")),
		Entry("a window's duration is positive",
			applySet(`{windows: [{kind: Deny, schedule: "@daily", duration: 0s}]}`),
			rejected("spec.windows[0].duration", invalid, "duration must be positive and at most 744h")),
		Entry("a window lasts at most 31 days",
			applySet(`{windows: [{kind: Deny, schedule: "@daily", duration: 745h}]}`),
			rejected("spec.windows[0].duration", invalid, "duration must be positive and at most 744h")),
		Entry("a window's time zone is not empty",
			applySet(`{windows: [{kind: Deny, schedule: "@daily", duration: 1h, timeZone: ""}]}`),
			rejected("spec.windows[0].timeZone", invalid, "should be at least 1 chars long")),
		Entry("a window's time zone is bounded",
			applySet(`{windows: [{kind: Deny, schedule: "@daily", duration: 1h, timeZone: `+strings.Repeat("A", 65)+`}]}`),
			rejected("spec.windows[0].timeZone", tooLong, "may not be more than 64")),
		Entry("a window's time zone is a zone's name, not a path",
			applySet(`{windows: [{kind: Deny, schedule: "@daily", duration: 1h, timeZone: ../../etc/passwd}]}`),
			rejected("spec.windows[0].timeZone", invalid, "should match")),
		Entry("a set has at most 16 windows",
			applySet("{windows: ["+repeat(17, func(int) string { return `{kind: Deny, schedule: "@daily", duration: 1h}` })+"]}"),
			rejected("spec.windows", tooMany, "must have at most 16 items")),

		// Health.
		Entry("wait, timeout and health checks are accepted",
			applySet(`{wait: true, timeout: 2m, healthChecks: [{apiVersion: batch.example.com/v1, kind: Task,
				current: "status.phase == 'Succeeded'", failed: "status.phase == 'Failed'", inProgress: "!has(status.phase)"}]}`),
			accepted),
		Entry("timeout is positive",
			applySet("{timeout: 0s}"),
			rejected("spec.timeout", invalid, "timeout must be a positive duration")),
		Entry("a health check needs current",
			applySet("{healthChecks: [{apiVersion: v1, kind: ConfigMap}]}"),
			rejected("spec.healthChecks[0].current", required, "Required value")),
		Entry("one health check per apiVersion and kind",
			applySet(`{healthChecks: [{apiVersion: v1, kind: ConfigMap, current: "true"}, {apiVersion: v1, kind: ConfigMap, current: "false"}]}`),
			rejected("spec.healthChecks", invalid, "one health check per apiVersion and kind")),
		Entry("ignored paths are a set",
			applySet("{ignoreFields: [{kind: Deployment, paths: [.spec.replicas, .spec.replicas]}]}"),
			rejected("spec.ignoreFields[0].paths[1]", duplicate, `Duplicate value: ".spec.replicas"`)),
	)

	It("defaults prune, dryRun, force, deletionPolicy, driftPolicy and interval", func(ctx context.Context) {
		set := &applyv1alpha1.ApplySet{}
		set.Name, set.Namespace = "defaults", home
		Expect(k8sClient.Create(ctx, set, client.DryRunAll)).To(Succeed())
		Expect(set.Spec.Prune).To(HaveValue(BeTrue()))
		Expect(set.Spec.DryRun).To(HaveValue(BeFalse()))
		Expect(set.Spec.Force).To(HaveValue(BeFalse()))
		Expect(set.Spec.DeletionPolicy).To(Equal(applyv1alpha1.DeletionPolicyDelete))
		Expect(set.Spec.DriftPolicy).To(Equal(applyv1alpha1.DriftPolicyCorrect))
		Expect(set.Spec.Interval).To(HaveValue(HaveField("Duration", 10*time.Minute)))
	})

	It("has no namespace field in sources: they are read from the ApplySet's namespace", func(ctx context.Context) {
		// kubectl validates fields strictly by default, as this request does.
		err := k8sClient.Create(ctx, parse(applySet("{sources: [{kind: ConfigMap, name: m, namespace: "+other+"}]}")),
			client.DryRunAll, client.FieldValidation("Strict"))
		Expect(apierrors.IsBadRequest(err)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring(`unknown field "spec.sources[0].namespace"`))
	})

	It("keeps the unknown fields of inline resources", func(ctx context.Context) {
		manifest := applySet("{resources: [{apiVersion: apps/v1, kind: Deployment, " +
			"metadata: {name: web, ownerReferences: []}, spec: {replicas: 2, template: {spec: {containers: [{name: c}]}}}}]}")
		obj := parse(manifest)
		Expect(k8sClient.Create(ctx, obj, client.DryRunAll)).To(Succeed())
		resources, _, _ := unstructuredSlice(obj.Object, "spec", "resources")
		Expect(resources).To(HaveLen(1))
		Expect(resources[0]).To(HaveKeyWithValue("spec", HaveKeyWithValue("replicas", BeNumerically("==", 2))))
	})
})

var _ = Describe("ClusterApplySet validation", func() {
	DescribeTable("rules", func(ctx context.Context, manifest string, want *rejection) {
		expectBoth(ctx, manifest, want)
	},
		Entry("resources in any namespace and sources with namespaces are accepted", clusterApplySet(`{
			resources: [`+configMap("a", "namespace: "+home)+`, `+configMap("b", "namespace: "+other)+`,
				{apiVersion: v1, kind: Namespace, metadata: {name: team-c}}],
			sources: [{kind: Secret, name: m, namespace: `+other+`}]}`), accepted),
		Entry("a source names its namespace",
			clusterApplySet("{sources: [{kind: ConfigMap, name: m}]}"),
			rejected("spec.sources[0].namespace", required, "a ConfigMap or Secret source names its namespace")),
		Entry("an oci source without Secrets needs no namespace",
			clusterApplySet("{sources: [{oci: {url: oci://registry.example.com/app, tag: v1}, path: base}]}"), accepted),
		Entry("an oci source with credentials names their namespace",
			clusterApplySet("{sources: [{namespace: "+other+", oci: {url: oci://registry.example.com/app, tag: v1, secretRef: {name: pull}}}]}"), accepted),
		Entry("a flux source names the namespace of its object",
			clusterApplySet("{sources: [{namespace: "+other+", flux: {kind: GitRepository, name: app}, path: overlays/prod}]}"), accepted),
		Entry("a flux source needs a namespace",
			clusterApplySet("{sources: [{flux: {kind: ExternalArtifact, name: app}}]}"),
			rejected("spec.sources[0].namespace", required, "a flux source names the namespace of its object")),
		Entry("an oci source's Secrets need a namespace",
			clusterApplySet("{sources: [{oci: {url: oci://registry.example.com/app, tag: v1, caSecretRef: {name: ca}}}]}"),
			rejected("spec.sources[0].namespace", required, "an oci source's secretRef and caSecretRef are read from namespace")),
		Entry("a source's namespace is a DNS-1123 label",
			clusterApplySet("{sources: [{kind: ConfigMap, name: m, namespace: Team_B}]}"),
			rejected("spec.sources[0].namespace", invalid, "should match")),
		Entry("the inline resource rules hold too",
			clusterApplySet("{resources: ["+configMap("a", "generateName: a-")+"]}"),
			rejected("spec.resources[0].metadata.generateName", forbidden, "give the object a fixed metadata.name")),
		Entry("a ServiceAccount named with its namespace is accepted",
			clusterApplySet("{serviceAccountName: deployer, serviceAccountNamespace: "+other+"}"), accepted),
		Entry("a ClusterApplySet depends on objects, naming a namespaced one's namespace",
			clusterApplySet(`{serviceAccountName: deployer, serviceAccountNamespace: `+other+`, dependsOn: [{kind: ClusterApplySet, name: crds},
				{apiVersion: cert-manager.io/v1, kind: Certificate, name: web-tls, namespace: `+other+`, readyExpr: "has(self.status)"}]}`), accepted),
		Entry("an approval and the digest of an approved plan are accepted",
			clusterApplySet("{approval: Manual, approvedPlan: 'sha256:"+strings.Repeat("0a", 32)+"'}"), accepted),
		Entry("driftPolicy Report is accepted", clusterApplySet("{driftPolicy: Report}"), accepted),
		Entry("the driftPolicy rules hold too",
			clusterApplySet("{driftPolicy: report}"),
			rejected("spec.driftPolicy", notSupported, `supported values: "Correct", "Report"`)),
		Entry("the approval rules hold too",
			clusterApplySet("{approval: Later}"),
			rejected("spec.approval", notSupported, `supported values: "Auto", "Manual", "Prune"`)),
		Entry("a ServiceAccount's name needs its namespace",
			clusterApplySet("{serviceAccountName: deployer}"),
			rejected("spec.serviceAccountNamespace", required, "set both or neither")),
		Entry("a ServiceAccount's namespace needs its name",
			clusterApplySet("{serviceAccountNamespace: "+other+"}"),
			rejected("spec.serviceAccountNamespace", required, "set both or neither")),
		Entry("serviceAccountNamespace is a DNS-1123 label",
			clusterApplySet("{serviceAccountName: deployer, serviceAccountNamespace: Team_B}"),
			rejected("spec.serviceAccountNamespace", invalid, "should match")),
	)
})

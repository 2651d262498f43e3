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
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Complete objects of each kind, every field set to an accepted value: the
// accepted case of every rule, and the base the boundary cases change.
var complete = map[string]string{
	"ApplySet": `{apiVersion: apply.applyset.dev/v1alpha1, kind: ApplySet, metadata: {name: full, namespace: ` + home + `}, spec: {
		resources: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: ` + other + `, labels: {app: a}, annotations: {note: a}}}],
		sources: [{kind: ConfigMap, name: manifests, key: app.yaml}, ` + ociSource + `, ` + fluxSource + `],
		prune: true, dryRun: false, force: false, wait: true, suspend: false,
		additionalNamespaces: [` + other + `], deletionPolicy: Delete, serviceAccountName: deployer, interval: 10m, timeout: 5m,
		dependsOn: [{kind: ApplySet, name: base, namespace: ` + home + `}],
		ignoreFields: [{group: apps, kind: Deployment, name: web, namespace: ` + home + `, paths: [.spec.replicas]}],
		windows: [{kind: Deny, schedule: "0 22 * * 5", duration: 58h, timeZone: Europe/Berlin}],
		healthChecks: [{apiVersion: example.com/v1, kind: Widget, current: "self.status.ready", failed: "false", inProgress: "true"}]}}`,
	"ClusterApplySet": `{apiVersion: apply.applyset.dev/v1alpha1, kind: ClusterApplySet, metadata: {name: full}, spec: {
		resources: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: ` + other + `, labels: {app: a}, annotations: {note: a}}}],
		sources: [{kind: ConfigMap, namespace: ` + home + `, name: manifests, key: app.yaml}, ` + clusterOCISource + `, ` + clusterFluxSource + `],
		prune: true, dryRun: false, force: false, wait: true, suspend: false,
		additionalNamespaces: [` + other + `], deletionPolicy: Delete,
		serviceAccountName: deployer, serviceAccountNamespace: ` + home + `, interval: 10m, timeout: 5m,
		dependsOn: [{kind: ApplySet, name: base, namespace: ` + home + `}],
		ignoreFields: [{group: apps, kind: Deployment, name: web, namespace: ` + home + `, paths: [.spec.replicas]}],
		windows: [{kind: Deny, schedule: "0 22 * * 5", duration: 58h, timeZone: Europe/Berlin}],
		healthChecks: [{apiVersion: example.com/v1, kind: Widget, current: "self.status.ready", failed: "false", inProgress: "true"}]}}`,
	"CustomFeatureGates": `{apiVersion: features.applyset.dev/v1alpha1, kind: CustomFeatureGates, metadata: {name: widgets.example.com},
		spec: {component: widgets, featureGates: [{name: OldField, preRelease: Deprecated, default: true, enabled: true,
			deprecationWarning: "oldField goes in v2", fieldPaths: [.spec.oldField]}]}}`,
}

// ociSource is an oci source with every field set; a ClusterApplySet's
// names the namespace of its Secrets.
var (
	ociSource = `{oci: {url: oci://registry.example.com/team/app, tag: v1.2.0, digest: 'sha256:` + strings.Repeat("0a", 32) + `',
		secretRef: {name: pull}, caSecretRef: {name: registry-ca}, insecure: false}, path: overlays/prod}`
	clusterOCISource = strings.Replace(ociSource, "path:", "namespace: "+home+", path:", 1)
	// fluxSource is a flux source with every field set; a ClusterApplySet's
	// names the namespace of its object.
	fluxSource        = `{flux: {kind: GitRepository, name: app}, path: deploy}`
	clusterFluxSource = strings.Replace(fluxSource, "path:", "namespace: "+home+", path:", 1)
)

// Boundary cases, made from the CRDs' own constraints: for each OpenAPI
// constraint, the complete object with one value just past it. Both the API
// server and the offline validator must refuse it, for that constraint.
var _ = Describe("Boundaries of every OpenAPI constraint", func() {
	rules, err := crdRules()
	if err != nil {
		panic(err)
	}
	for kind, manifest := range complete {
		It(fmt.Sprintf("accepts a complete %s", kind), func(ctx context.Context) {
			expectBoth(ctx, manifest, accepted)
		})
	}
	for _, r := range rules {
		if r.keyword == "rule" || complete[r.kind] == "" {
			continue // CEL rules have hand-written cases
		}
		It(fmt.Sprintf("refuses a %s value past %s", r.kind, r), func(ctx context.Context) {
			obj := parse(complete[r.kind])
			pastBoundary(obj.Object, strings.Split(strings.ReplaceAll(r.path, "[*]", ".[*]"), "."), r.keyword, r.limit)
			expectRefusedBy(ctx, obj, r)
		})
	}
})

// pastBoundary changes the value at path to one just past the constraint.
func pastBoundary(value any, path []string, keyword string, limit int64) {
	GinkgoHelper()
	parent, last := walkTo(value, path[:len(path)-1]), path[len(path)-1]
	get := func() any {
		switch p := parent.(type) {
		case map[string]any:
			return p[last]
		case []any:
			return p[0]
		}
		return nil
	}
	set := func(v any) {
		switch p := parent.(type) {
		case map[string]any:
			p[last] = v
		case []any:
			p[0] = v
		}
	}
	switch keyword {
	case "maxLength":
		set(strings.Repeat("a", int(limit)+1))
	case "minLength":
		set(strings.Repeat("a", int(limit)-1))
	case "pattern":
		set("Not A Match!")
	case "enum":
		set("NotAllowed")
	case "required":
		delete(parent.(map[string]any), last)
	case "maxItems":
		list := get().([]any)
		for int64(len(list)) <= limit {
			list = append(list, distinct(list[0], len(list)))
		}
		set(list)
	case "minItems":
		set(get().([]any)[:limit-1])
	case "listType=set", "listType=map":
		list := get().([]any)
		set(append(list, list[0]))
	default:
		Fail("no boundary case for " + keyword)
	}
}

// distinct is another item like item: a string with a suffix, so that a
// list of them is too long without holding duplicates, or a copy.
func distinct(item any, i int) any {
	if s, ok := item.(string); ok {
		return s + strconv.Itoa(i)
	}
	return runtimeDeepCopy(item)
}

func runtimeDeepCopy(v any) any {
	data, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}

func walkTo(value any, path []string) any {
	GinkgoHelper()
	for i, seg := range path {
		switch v := value.(type) {
		case map[string]any:
			value = v[seg]
		case []any:
			Expect(v).NotTo(BeEmpty(), "the complete object has no item at %v", path)
			value = firstHolding(v, path[i+1:])
		}
		Expect(value).NotTo(BeNil(), "the complete object lacks %v", path)
	}
	return value
}

// firstHolding is the first item of list with a value at rest, or the
// first item: a list may hold items of several shapes, such as sources.
func firstHolding(list []any, rest []string) any {
	for _, item := range list {
		if present(item, rest) {
			return item
		}
	}
	return list[0]
}

// expectRefusedBy checks that the API server refuses obj, that the offline
// validator gives the same causes, and that one of them is r's.
func expectRefusedBy(ctx context.Context, obj *unstructured.Unstructured, r rule) {
	GinkgoHelper()
	data, err := json.Marshal(obj.Object)
	Expect(err).NotTo(HaveOccurred())
	serverErr := dryRunCreate(ctx, string(data))
	Expect(serverErr).To(HaveOccurred(), "the API server accepted a value past %s", r)
	errs, err := offline.Check(ctx, obj)
	Expect(err).NotTo(HaveOccurred())
	recordCase(obj, errs)
	var status apierrors.APIStatus
	Expect(errors.As(serverErr, &status)).To(BeTrue())
	Expect(status.Status().Details).NotTo(BeNil(), serverErr.Error())
	offlineCauses := apierrors.NewInvalid(obj.GroupVersionKind().GroupKind(), obj.GetName(), errs).Status().Details.Causes
	Expect(offlineCauses).To(ConsistOf(status.Status().Details.Causes), "offline causes differ from the API server's")
	Expect(errs).To(ContainElement(Satisfy(func(e *field.Error) bool { return refusedBy(e, r) })), "no cause for %s among %v", r, errs)
}

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

package featuregate

import (
	"errors"
	"net/http"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
)

// The webhook entry sends the webhook the probes of its own revision, as dry
// runs for its own CustomFeatureGates only, and the requests of the CRD that
// hold a gated field; its revision changes with its paths.
func TestWebhookEntryProbe(t *testing.T) {
	target := Target{CRD: testGVR.Resource + "." + testGVR.Group, Group: testGVR.Group, Version: testGVR.Version, Plural: testGVR.Resource}
	entry := WebhookEntryFor(target, []Gate{alpha("Off", false, ".spec.a")})
	other := WebhookEntryFor(target, []Gate{alpha("Off", false, ".spec.a"), alpha("More", false, ".spec.b")})
	if entry.Revision == other.Revision {
		t.Fatalf("one revision %s for entries of different paths", entry.Revision)
	}
	if flipped := WebhookEntryFor(target, []Gate{alpha("Off", true, ".spec.a")}); flipped.Revision != entry.Revision {
		t.Error("a flip changed the revision: the entry does not depend on gate states")
	}
	p := &admissionregistrationv1.MutatingAdmissionPolicy{Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{MatchConditions: entry.Conditions}}
	compiler, err := newCompiler()
	if err != nil {
		t.Fatal(err)
	}
	gates := func(name, revision string) map[string]any {
		obj := map[string]any{"metadata": map[string]any{"name": name}, "spec": map[string]any{}}
		if revision != "" {
			obj["metadata"].(map[string]any)["annotations"] = map[string]any{ProbeAnnotation: revision}
		}
		return obj
	}
	tests := []struct {
		name     string
		gvr      schema.GroupVersionResource
		dryRun   bool
		obj, old map[string]any
		want     bool
	}{
		{name: "a probe of its revision", gvr: probeResource, dryRun: true, obj: gates(target.CRD, entry.Revision), old: gates(target.CRD, ""), want: true},
		{name: "a probe of another revision", gvr: probeResource, dryRun: true, obj: gates(target.CRD, other.Revision), old: gates(target.CRD, ""), want: false},
		{name: "the probe, not as a dry run", gvr: probeResource, obj: gates(target.CRD, entry.Revision), old: gates(target.CRD, ""), want: false},
		{name: "a probe of other gates", gvr: probeResource, dryRun: true, obj: gates("others.example.com", entry.Revision), old: gates("others.example.com", ""), want: false},
		{name: "the operator's status write", gvr: probeResource, obj: gates(target.CRD, ""), old: gates(target.CRD, ""), want: false},
		{name: "a gated request", gvr: testGVR, obj: map[string]any{"spec": map[string]any{"a": "v"}}, want: true},
		{name: "an untouched request", gvr: testGVR, obj: map[string]any{"spec": map[string]any{"z": "v"}}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gvk := tt.gvr.GroupVersion().WithKind("Any")
			// withKind names every object "probe": keep the gates' names.
			named := func(obj map[string]any) *unstructured.Unstructured {
				u := &unstructured.Unstructured{Object: withKind(obj)}
				if md, ok := obj["metadata"].(map[string]any); ok && md["name"] != nil {
					u.SetName(md["name"].(string))
				}
				return u
			}
			op, cur := admission.Create, named(tt.obj)
			var old runtime.Object
			if tt.old != nil {
				op, old = admission.Update, named(tt.old)
			}
			attrs := admission.NewAttributesRecord(cur, old, gvk, "", "x", tt.gvr, "", op, nil, tt.dryRun, nil)
			got, err := matchConditionsHold(p, compiler, plugincel.OptionalVariableDeclarations{HasAuthorizer: true}, attrs, gvk)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("sent to the webhook: %v, want %v", got, tt.want)
			}
		})
	}
}

func TestWebhookProbeAnswers(t *testing.T) {
	denied := func(entry, msg string) error {
		return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden,
			Reason: metav1.StatusReasonForbidden, Message: `admission webhook "` + entry + `" denied the request: ` + msg}}
	}
	tests := []struct {
		name      string
		err       error
		want      bool
		readError bool // ReadWebhookProbe returns it
	}{
		{name: "the answer", err: denied("crontabs.stable.example.com", WebhookProbeAnswer), want: true},
		{name: "another entry's answer", err: denied("widgets.example.com", WebhookProbeAnswer), want: false, readError: true},
		{name: "another refusal", err: denied("crontabs.stable.example.com", "no"), want: false, readError: true},
		{name: "unreachable", err: apierrors.NewInternalError(errors.New(`failed calling webhook "crontabs.stable.example.com"`)), want: false, readError: true},
		{name: "the schema not known yet", err: apierrors.NewServiceUnavailable("Resource kind not found"), want: false},
		{name: "accepted", err: nil, want: false},
	}
	for _, tt := range tests {
		if got := webhookProbe("crontabs.stable.example.com").answered(tt.err); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
		loaded, err := ReadWebhookProbe(tt.err, "crontabs.stable.example.com")
		if loaded != tt.want || (err != nil) != tt.readError {
			t.Errorf("%s: ReadWebhookProbe = %v, %v", tt.name, loaded, err)
		}
	}
}

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

package featuregates

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/metrics"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// WebhookPath is where the field-dropping webhook is served.
const WebhookPath = "/featuregates/drop"

var droppedFields = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "applyset_operator_featuregate_dropped_fields_total",
	Help: "Fields of disabled feature gates dropped from requests (action=dropped) or kept at their stored value (action=kept).",
}, []string{"crd", "gate", "action"})

var webhookDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
	Name:    "applyset_operator_featuregate_webhook_duration_seconds",
	Help:    "Time the field-dropping webhook takes to answer one admission request, by gated CRD.",
	Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1},
}, []string{"crd"})

func init() {
	metrics.MustRegister(droppedFields, webhookDuration)
}

// dropper is the mutating webhook that applies a CRD's feature gates to create
// and update requests of its objects (and their status).
type dropper struct {
	// Reader reads CustomFeatureGates from the informer cache: no API call per request.
	Reader client.Reader

	mu sync.Mutex
	// compiled holds each CustomFeatureGates' gates compiled at one
	// generation, by name: compiling costs more than dropping.
	compiled map[string]compiledGates
}

type compiledGates struct {
	uid        types.UID
	generation int64
	set        *featuregate.Set
	err        error
}

// gates returns cfg's gates compiled, compiling them once per generation.
func (d *dropper) gates(cfg *featuresv1alpha1.CustomFeatureGates) (*featuregate.Set, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if c, ok := d.compiled[cfg.Name]; ok && c.uid == cfg.UID && c.generation == cfg.Generation {
		return c.set, c.err
	}
	set, err := featuregate.Compile(featuregate.FromAPI(cfg.Spec.FeatureGates))
	if d.compiled == nil {
		d.compiled = map[string]compiledGates{}
	}
	d.compiled[cfg.Name] = compiledGates{uid: cfg.UID, generation: cfg.Generation, set: set, err: err}
	return set, err
}

// Handle drops, or restores, the fields of disabled gates. It has no side
// effects, so dry-run requests see exactly what would be stored.
func (d *dropper) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	if req.Resource.Group == featuresv1alpha1.GroupVersion.Group {
		return answerProbe(req)
	}
	crd := req.Resource.Resource + "." + req.Resource.Group
	if featuregate.CheckTarget(crd) != nil {
		return admission.Allowed("the operator's own CRDs are not gated")
	}
	defer func(start time.Time) { webhookDuration.WithLabelValues(crd).Observe(time.Since(start).Seconds()) }(time.Now())
	cfg := &featuresv1alpha1.CustomFeatureGates{}
	if err := d.Reader.Get(ctx, client.ObjectKey{Name: crd}, cfg); err != nil {
		if client.IgnoreNotFound(err) == nil {
			return admission.Allowed("no feature gates for " + crd)
		}
		return admission.Errored(http.StatusInternalServerError, err)
	}
	set, err := d.gates(cfg)
	if err != nil {
		// The API server validates gates; an invalid set here must not block writes.
		return admission.Allowed("").WithWarnings(warnings("feature gates of " + crd + " not applied: " + err.Error())...)
	}

	var obj, old map[string]any
	if err := json.Unmarshal(req.Object.Raw, &obj); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if len(req.OldObject.Raw) > 0 {
		if err := json.Unmarshal(req.OldObject.Raw, &old); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
	}
	outcome := set.Drop(obj, old)
	if !outcome.Changed() {
		return admission.Allowed("").WithWarnings(warnings(outcome.Warnings...)...)
	}
	for gate, paths := range outcome.Dropped {
		droppedFields.WithLabelValues(crd, gate, "dropped").Add(float64(len(paths)))
	}
	for gate, paths := range outcome.Kept {
		droppedFields.WithLabelValues(crd, gate, "kept").Add(float64(len(paths)))
	}
	patched, err := json.Marshal(obj)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, patched).WithWarnings(warnings(outcome.Warnings...)...)
}

// maxWarning keeps admission warnings under the 120 characters the API
// server's convention asks of them.
const maxWarning = 119

func warnings(ws ...string) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		out = append(out, text.Truncate(w, maxWarning))
	}
	return out
}

// SetupWebhook serves the field-dropping webhook at WebhookPath on server and
// adds registrar, which keeps the webhook entries of every gated CRD pointing
// at it, to mgr. The webhook reads gates from mgr's cache. The manager
// serves it on its own server; tests pass mgr.GetWebhookServer().
func SetupWebhook(mgr ctrl.Manager, server webhook.Server, registrar *Registrar) error {
	server.Register(WebhookPath, &webhook.Admission{Handler: &dropper{Reader: mgr.GetClient()}})
	return registrar.SetupWithManager(mgr)
}

// answerProbe answers a request for the CustomFeatureGates: only the
// operator's probes of an entry come here (its match conditions), and
// refusing one says the API server calls the webhook through that entry. A
// dry run stores nothing either way; anything else passes.
func answerProbe(req admission.Request) admission.Response {
	if req.DryRun != nil && *req.DryRun {
		return admission.Denied(featuregate.WebhookProbeAnswer)
	}
	return admission.Allowed("")
}

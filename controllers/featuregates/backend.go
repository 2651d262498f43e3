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

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/builder"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
)

// Backend names what enforces the gates of CustomFeatureGates objects.
type Backend string

const (
	// BackendWebhook drops fields in the operator's mutating webhook.
	BackendWebhook Backend = "webhook"
	// BackendPolicy compiles the gates into admission policies, which the API
	// server runs itself: no webhook hop, and no operator replica on the write
	// path. It needs an API server that serves MutatingAdmissionPolicies.
	BackendPolicy Backend = "policy"
)

// servesWebhook says whether the backend needs webhook entries; the other
// backend wants none, so that none an earlier run left enforces the gates
// twice (or refuses writes once its handler is gone).
func (b Backend) servesWebhook() bool { return b != BackendPolicy }

// enforcer is a backend's part of the reconciler: the one place that differs
// between the two.
type enforcer interface {
	// enforce puts cfg's gates in force on crd (nil when it does not exist)
	// and says how that stands; an error is for what status cannot report.
	enforce(ctx context.Context, cfg *featuresv1alpha1.CustomFeatureGates, crd *apiextensionsv1.CustomResourceDefinition) (enforcement, error)
	// forget removes what enforced the gates of the deleted object named gates.
	forget(ctx context.Context, gates string) error
	// watch adds to b the objects whose changes must reach the reconciler.
	watch(b *builder.Builder) *builder.Builder
}

// enforcer returns the reconciler's backend.
func (r *Reconciler) enforcer() enforcer {
	if r.Backend == BackendPolicy {
		return policyBackend{r}
	}
	return webhookBackend{r}
}

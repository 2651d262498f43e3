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
	"fmt"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

const (
	// ProbeUser is the identity of the write probe (pkg/featuregate's
	// WriteProbeObject): config/rbac lets it create objects of any kind in
	// the operator's namespace only, and config/policy refuses every request
	// of it that is not a dry run. The operator may impersonate it and no
	// other user besides the approval probe's, and does so for that one
	// request; it holds no right to create the gated kinds itself.
	ProbeUser = "system:applyset-operator:featuregate-probe"
	// DefaultProbeNamespace is where the write probe creates namespaced
	// kinds when Options.ProbeNamespace is empty: the install's namespace.
	DefaultProbeNamespace = "applyset-operator-system"

	// firstProbeRetry and maxProbeRetry space the probes of a kind whose
	// writes are not admitted yet.
	firstProbeRetry = 500 * time.Millisecond
	maxProbeRetry   = 30 * time.Second
)

// +kubebuilder:rbac:groups="",resources=users,verbs=impersonate,resourceNames=system:applyset-operator:featuregate-probe

// writeProbe asks the API server, once the gates are in force, whether a
// write of the gated kind is admitted: a dry-run create, as ProbeUser, of
// an object that sets every gated field. An answer that it is admitted is
// kept until the CRD, the gates or the backend change.
type writeProbe struct {
	client    client.Client
	namespace string

	mu sync.Mutex
	// admitted is, by CustomFeatureGates name, what was last found admitted.
	admitted map[string]string
	// tries counts the probes of each not admitted since the last admission.
	tries map[string]int
}

// newWriteProbe acts as ProbeUser, impersonated from cfg.
func newWriteProbe(cfg *rest.Config, opts client.Options, namespace string) (*writeProbe, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: ProbeUser}
	c, err := client.New(cfg, opts)
	if err != nil {
		return nil, fmt.Errorf("a client impersonating %s: %w", ProbeUser, err)
	}
	if namespace == "" {
		namespace = DefaultProbeNamespace
	}
	return &writeProbe{client: c, namespace: namespace, admitted: map[string]string{}, tries: map[string]int{}}, nil
}

// writeAdmission is what status says of the write probe.
type writeAdmission struct {
	// made says a probe was made (or an earlier one stands); skipped says
	// why none was, when there is something to say.
	made    bool
	skipped string
	answer  featuregate.WriteProbeAnswer
	// err is the API server's answer when the write was not admitted.
	err error
	// resource and namespace name what was probed.
	resource, namespace string
	// retry is how soon to probe again.
	retry time.Duration
}

// check probes writes of crd under cfg's gates, enforced by backend.
func (p *writeProbe) check(ctx context.Context, cfg *featuresv1alpha1.CustomFeatureGates, crd *apiextensionsv1.CustomResourceDefinition,
	backend Backend) writeAdmission {
	w := writeAdmission{resource: crd.Spec.Names.Plural + "." + crd.Spec.Group}
	if crd.Spec.Scope != apiextensionsv1.NamespaceScoped {
		// The probe identity may create objects in one namespace only: a
		// right to create cluster-scoped objects of any kind would be a
		// right to write admission configuration, which no admission
		// policy can keep to dry runs.
		w.skipped = fmt.Sprintf("writes of the cluster-scoped %s are not probed", w.resource)
		return w
	}
	w.namespace = p.namespace
	var paths []string
	for _, g := range cfg.Spec.FeatureGates {
		paths = append(paths, g.FieldPaths...)
	}
	obj, ok := featuregate.WriteProbeObject(crd, paths, p.namespace)
	if !ok {
		return writeAdmission{}
	}
	key := fmt.Sprintf("%s/%s/%d/%s", crd.UID, crd.ResourceVersion, cfg.Generation, backend)
	p.mu.Lock()
	known := p.admitted[cfg.Name] == key
	p.mu.Unlock()
	w.made = true
	if known {
		return w
	}
	err := p.client.Create(ctx, obj, client.DryRunAll)
	w.answer = featuregate.ReadWriteProbe(err)
	p.mu.Lock()
	defer p.mu.Unlock()
	if w.answer == featuregate.WriteAdmitted {
		p.admitted[cfg.Name] = key
		delete(p.tries, cfg.Name)
		return w
	}
	w.err = err
	delete(p.admitted, cfg.Name)
	w.retry = min(firstProbeRetry<<min(p.tries[cfg.Name], 6), maxProbeRetry)
	p.tries[cfg.Name]++
	return w
}

// forget drops what was found of the CustomFeatureGates named gates.
func (p *writeProbe) forget(gates string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.admitted, gates)
	delete(p.tries, gates)
}

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

// Package testenv sets up what the API-server test suites share: a local
// control plane with the project's CRDs, a client, a kubeconfig for the real
// kubectl, and a manager running the reconcilers under test.
package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/controlplane"
	"github.com/applyset-operator/applyset-operator/internal/reqcount"
)

// Env is a running control plane with a client that knows every type the
// operator uses.
type Env struct {
	*controlplane.ControlPlane
	Scheme *runtime.Scheme
	Client client.Client
	// Kubeconfig is the path of a kubeconfig for kubectl.
	Kubeconfig string
}

// Start runs a control plane and writes its kubeconfig into dir.
func Start(ctx context.Context, dir string) (*Env, error) {
	return startWith(ctx, dir, controlplane.Options{})
}

// startWith is Start with options for the control plane.
func startWith(ctx context.Context, dir string, opts controlplane.Options) (*Env, error) {
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}
	cp, err := controlplane.StartWith(ctx, opts)
	if err != nil {
		return nil, err
	}
	env := &Env{ControlPlane: cp, Scheme: scheme, Kubeconfig: filepath.Join(dir, "kubeconfig")}
	if env.Client, err = client.New(cp.Config, client.Options{Scheme: scheme}); err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	if err := cp.WriteKubeconfig(env.Kubeconfig); err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	return env, nil
}

// NewScheme knows every type the operator uses. A manager that adds types to
// its scheme (one with a LeaderElectionConfig of its own adds the core and
// coordination types) needs one of its own: the Env's is read by every
// client and watch of the suite meanwhile.
func NewScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, applyv1alpha1.AddToScheme, featuresv1alpha1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	return scheme, nil
}

// WebhookURL is where the API server reaches the webhook server of a manager
// from RunManager; WebhookCA verifies its certificate.
func (e *Env) WebhookURL() string {
	host, port, _ := e.WebhookServing()
	return "https://" + net.JoinHostPort(host, strconv.Itoa(port))
}

// RunManager starts a manager set up by setup; stop ends it and returns its error.
func (e *Env) RunManager(setup func(ctrl.Manager) error) (stop func() error, err error) {
	return e.RunManagerWith(nil, setup)
}

// RunManagerWith is RunManager with the manager's options changed by adjust
// (nil for none) before it is created, as cmd/manager changes them.
func (e *Env) RunManagerWith(adjust func(*ctrl.Options), setup func(ctrl.Manager) error) (stop func() error, err error) {
	return e.RunManagerAs(e.Config, adjust, setup)
}

// RunManagerAs is RunManagerWith on cfg, a copy of e.Config changed as
// cmd/manager changes its own (its user agent, for one).
func (e *Env) RunManagerAs(cfg *rest.Config, adjust func(*ctrl.Options), setup func(ctrl.Manager) error) (stop func() error, err error) {
	cancel, done, err := e.startManager(cfg, adjust, setup)
	if err != nil {
		return nil, err
	}
	return func() error {
		cancel()
		return <-done
	}, nil
}

// Supervise runs a manager as RunManagerAs does, and starts a new one
// whenever it ends by itself (an error at its start, say, while the API
// server restarts), as a kubelet restarts a Pod whose process ended.
// stop ends it; restarts counts the new starts.
func (e *Env) Supervise(cfg *rest.Config, setup func(ctrl.Manager) error) (stop func(), restarts *atomic.Int64) {
	quit, stopped := make(chan struct{}), make(chan struct{})
	restarts = &atomic.Int64{}
	go func() {
		defer close(stopped)
		for first := true; ; first = false {
			if !first {
				restarts.Add(1)
			}
			cancel, done, err := e.startManager(cfg, nil, setup)
			if err != nil {
				select {
				case <-quit:
					return
				case <-time.After(time.Second):
					continue
				}
			}
			select {
			case <-quit:
				cancel()
				<-done //nolint:errcheck // stopped on purpose: how it ended tells nothing
				return
			case err := <-done:
				cancel()
				log.Log.Info("A supervised manager ended by itself; starting a new one", "error", err)
				time.Sleep(time.Second)
			}
		}
	}()
	return func() {
		close(quit)
		<-stopped
	}, restarts
}

// startManager creates a manager on cfg, sets it up and starts it; done
// tells its end.
func (e *Env) startManager(cfg *rest.Config, adjust func(*ctrl.Options), setup func(ctrl.Manager) error) (
	cancel func(), done <-chan error, err error) {
	host, port, certDir := e.WebhookServing()
	opts := ctrl.Options{
		Scheme:        e.Scheme,
		Metrics:       metricsserver.Options{BindAddress: "0"},
		WebhookServer: webhook.NewServer(webhook.Options{Host: host, Port: port, CertDir: certDir}),
		// Suites start several managers in one process.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	}
	if adjust != nil {
		adjust(&opts)
	}
	// As the manager's main does: each reconcile counts its requests.
	mgr, err := ctrl.NewManager(reqcount.WrapConfig(rest.CopyConfig(cfg)), opts)
	if err != nil {
		return nil, nil, fmt.Errorf("creating the manager: %w", err)
	}
	if err := setup(mgr); err != nil {
		return nil, nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	ended := make(chan error, 1)
	go func() { ended <- mgr.Start(ctx) }()
	return stop, ended, nil
}

// Kubectl runs the kubectl built beside the control plane, with ApplySet
// support on, from the checkout's root, and returns its combined output.
func (e *Env) Kubectl(ctx context.Context, stdin string, args ...string) (string, error) {
	root, err := controlplane.Root()
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, e.KubectlPath(), append([]string{"--kubeconfig", e.Kubeconfig}, args...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "KUBECTL_APPLYSET=true")
	cmd.Stdin = bytes.NewBufferString(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// OpenCRD is a namespaced CRD of kind in group with a single version, v1,
// that keeps any field: for tests that need some custom resource, not a
// particular schema.
func OpenCRD(group, kind string) *apiextensionsv1.CustomResourceDefinition {
	singular := strings.ToLower(kind)
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: singular + "s." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: singular + "s", Singular: singular, Kind: kind, ListKind: kind + "List"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true)}},
			}},
		},
	}
}

// UnconvertibleCRD is a namespaced CRD of kind in group whose objects are
// stored as v1 and served as v2 too, converted by a webhook that never
// answers: its v1 objects can be written, but listing the preferred version
// v2 fails once one exists. For tests of types that cannot be listed.
func UnconvertibleCRD(group, kind string) *apiextensionsv1.CustomResourceDefinition {
	crd := OpenCRD(group, kind)
	v2 := crd.Spec.Versions[0]
	v2.Name, v2.Storage = "v2", false
	crd.Spec.Versions = append(crd.Spec.Versions, v2)
	crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{
			ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: ptr.To("https://127.0.0.1:1/convert")},
			ConversionReviewVersions: []string{"v1"},
		},
	}
	return crd
}

// Reconciles counts the reconciles of the named controller, in this process,
// that ended without an error: a way to wait for one to happen.
func Reconciles(controller string) (float64, error) {
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["controller"] == controller && labels["result"] != "error" {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total, nil
}

// HistogramSums sums the observations of the histogram family in this
// process's controller-runtime registry, by the value of label.
func HistogramSums(family, label string) (map[string]float64, error) {
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != family {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label {
					out[l.GetValue()] += m.GetHistogram().GetSampleSum()
				}
			}
		}
	}
	return out, nil
}

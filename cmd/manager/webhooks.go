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

package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/controllers/featuregates"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/webhooks"
)

// defaultCertDir is controller-runtime's default, where the Deployment mounts
// the certificate Secret.
var defaultCertDir = filepath.Join(os.TempDir(), "k8s-webhook-server", "serving-certs")

// The certificate rotation updates the certificate Secret, by name, in the
// operator's namespace: config/rbac/webhook_cert_role.yaml grants that, as a
// Role, which kubebuilder markers cannot limit to one name and namespace. It
// reads it, as every object, with the metadata index's get on */*.

// webhookOptions say where the operator's webhooks are served (the feature-gate
// field dropper and the ApplySet validator) and how the API server reaches and
// trusts them.
type webhookOptions struct {
	disabled      bool
	port          int
	certDir       string
	configuration string
	service       string
	url           string
	certRotation  bool
	certSecret    string
}

func (o *webhookOptions) bindFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.disabled, "disable-webhooks", false,
		"Serve and register no webhook: the webhook backend of CustomFeatureGates drops no field (they are evaluated in status only), "+
			"and ApplySets' health checks are not checked at admission.")
	fs.IntVar(&o.port, "webhook-port", webhook.DefaultPort,
		"Port the admission webhook server listens on.")
	fs.StringVar(&o.certDir, "webhook-cert-dir", defaultCertDir,
		"Directory holding tls.crt and tls.key (and ca.crt) of the webhook server.")
	fs.StringVar(&o.configuration, "webhook-configuration", featuregates.DefaultConfigurationName,
		"Name of the MutatingWebhookConfiguration holding one entry per CustomFeatureGates; the operator does not create it, "+
			"and config/rbac lets it write only the one the install ships, "+featuregates.DefaultConfigurationName+".")
	fs.StringVar(&o.service, "webhook-service", "",
		"namespace/name of the Service in front of the manager; defaults to applyset-operator-webhook-service in $POD_NAMESPACE.")
	fs.StringVar(&o.url, "webhook-url", "",
		"Base URL (https://host:port) at which the API server reaches a manager running outside the cluster; "+
			"the CA comes from ca.crt in --webhook-cert-dir and no certificate is rotated.")
	fs.BoolVar(&o.certRotation, "cert-rotation", true,
		"Keep a self-signed CA and serving certificate in --webhook-cert-secret and the caBundle of the webhook entries current.")
	fs.StringVar(&o.certSecret, "webhook-cert-secret", "applyset-operator-webhook-server-cert",
		"Secret, in the Service's namespace, holding the rotated certificate; mounted at --webhook-cert-dir. "+
			"The install ships it, and config/rbac lets the operator update that one Secret alone.")
}

// endpoint works out how the API server reaches the webhook server.
func (o *webhookOptions) endpoint() (webhooks.Endpoint, error) {
	if o.url != "" {
		ca, err := os.ReadFile(filepath.Join(o.certDir, "ca.crt"))
		if err != nil {
			return webhooks.Endpoint{}, fmt.Errorf("--webhook-url needs the CA of the serving certificate: %w", err)
		}
		return webhooks.Endpoint{URL: strings.TrimSuffix(o.url, "/"), CABundle: ca}, nil
	}
	service := o.service
	if service == "" {
		ns := os.Getenv("POD_NAMESPACE")
		if ns == "" {
			return webhooks.Endpoint{}, errors.New("the webhook needs --webhook-service, $POD_NAMESPACE, --webhook-url, or --disable-webhooks")
		}
		service = ns + "/applyset-operator-webhook-service"
	}
	ns, name, ok := strings.Cut(service, "/")
	if !ok || ns == "" || name == "" {
		return webhooks.Endpoint{}, fmt.Errorf("--webhook-service %q: want namespace/name", service)
	}
	ep := webhooks.Endpoint{Service: &types.NamespacedName{Namespace: ns, Name: name}}
	if !o.certRotation {
		// Whatever issues the certificate (cert-manager, say) may leave its CA
		// beside it; without one, something else must inject the caBundle.
		if ca, err := os.ReadFile(filepath.Join(o.certDir, "ca.crt")); err == nil {
			ep.CABundle = ca
		}
	}
	return ep, nil
}

// setupWebhooks registers and serves the operator's webhooks: the feature-gate
// entries (none under the policy backend) and the ApplySet validator. With
// certificate rotation the server starts once its certificate is in place.
func setupWebhooks(mgr ctrl.Manager, o webhookOptions, backend featuregates.Backend, tlsOpts []func(*tls.Config)) error {
	if o.disabled {
		setupLog.Info("Webhooks disabled: the webhook backend drops no field and health checks are not checked at admission")
		return nil
	}
	ep, err := o.endpoint()
	if err != nil {
		return err
	}
	server := webhook.NewServer(webhook.Options{Port: o.port, CertDir: o.certDir, TLSOpts: tlsOpts})
	serving := &deferredServer{Server: server, ready: closed()}
	if ep.Service != nil && o.certRotation {
		svc := ep.Service
		// The install ships the Secret, and both configurations the
		// registrars write the CA into: the operator creates none of them.
		ep.Certs = &webhooks.Certs{
			Secret:   types.NamespacedName{Namespace: svc.Namespace, Name: o.certSecret},
			DNSNames: []string{svc.Name + "." + svc.Namespace + ".svc", svc.Name + "." + svc.Namespace + ".svc.cluster.local"},
			CertDir:  o.certDir, Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), FieldManager: identity.CertsFieldManager,
		}
		if err := mgr.Add(ep.Certs); err != nil {
			return fmt.Errorf("setting up certificate rotation: %w", err)
		}
		serving.ready = ep.Certs.Ready()
	}
	if err := mgr.Add(serving); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("webhook", server.StartedChecker()); err != nil {
		return err
	}
	if err := featuregates.SetupWebhook(mgr, server, &featuregates.Registrar{
		Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Configuration: o.configuration, Endpoint: ep,
		Backend: backend,
	}); err != nil {
		return err
	}
	return applysets.SetupWebhook(mgr, server, &applysets.Registrar{
		Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Endpoint: ep,
	})
}

// closed is a channel already closed.
func closed() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

// deferredServer starts the webhook server once its certificate exists: the
// rotation writes the Secret, and the kubelet then updates the mounted files.
type deferredServer struct {
	webhook.Server
	ready <-chan struct{}
}

func (s *deferredServer) Start(ctx context.Context) error {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil
	}
	return s.Server.Start(ctx)
}

// NeedLeaderElection is false: every replica answers admission requests.
func (s *deferredServer) NeedLeaderElection() bool { return false }

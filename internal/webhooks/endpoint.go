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

// Package webhooks says how the API server reaches the operator's webhook
// server: the client configuration of a webhook entry, and the owner that
// takes the configurations away with the operator.
package webhooks

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	admissionv1ac "k8s.io/client-go/applyconfigurations/admissionregistration/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// Endpoint says how the API server reaches the manager's webhook server.
type Endpoint struct {
	// Service is the in-cluster Service in front of the manager. Its namespace
	// owns the webhook configurations, so uninstalling the operator removes them.
	Service *types.NamespacedName
	// ServicePort is the Service's port; 0 means 443.
	ServicePort int32
	// URL is the webhook server's base URL (https://host:port) when the
	// manager runs outside the cluster; used when Service is nil.
	URL string
	// CABundle is the PEM bundle that verifies the serving certificate.
	CABundle []byte
	// Certs, when set, issues the serving certificate, and its CA is the
	// bundle: an entry is written only once it is known (Pending).
	Certs *Certs
}

// Pending reports whether the CA bundle an entry must carry is not known
// yet: writing the entry without it would take a caBundle out.
func (ep Endpoint) Pending() bool {
	return ep.Certs != nil && ep.Certs.CABundle() == nil
}

// ClientConfig is the client configuration of an entry served at path.
func (ep Endpoint) ClientConfig(path string) *admissionv1ac.WebhookClientConfigApplyConfiguration {
	clientConfig := admissionv1ac.WebhookClientConfig()
	if ep.Service != nil {
		svc := admissionv1ac.ServiceReference().WithNamespace(ep.Service.Namespace).WithName(ep.Service.Name).WithPath(path)
		if ep.ServicePort != 0 {
			svc.WithPort(ep.ServicePort)
		}
		clientConfig.WithService(svc)
	} else {
		clientConfig.WithURL(ep.URL + path)
	}
	bundle := ep.CABundle
	if ep.Certs != nil {
		bundle = ep.Certs.CABundle()
	}
	if len(bundle) > 0 {
		clientConfig.WithCABundle(bundle...)
	}
	return clientConfig
}

// Owner is the Namespace of the in-cluster webhook Service, nil outside the
// cluster: deleting the operator's namespace then deletes the configurations
// too, so no entry is left pointing at a webhook that is gone.
func (ep Endpoint) Owner(ctx context.Context, reader client.Reader) (*metav1ac.OwnerReferenceApplyConfiguration, error) {
	if ep.Service == nil {
		return nil, nil
	}
	ns := &corev1.Namespace{}
	if err := reader.Get(ctx, client.ObjectKey{Name: ep.Service.Namespace}, ns); err != nil {
		return nil, fmt.Errorf("reading the webhook Service's Namespace %s: %w", ep.Service.Namespace, err)
	}
	return metav1ac.OwnerReference().WithAPIVersion("v1").WithKind("Namespace").WithName(ns.Name).WithUID(ns.UID), nil
}

// WatchCA adds to b a watch that queues key each time the CA of ep's Certs
// changes, so that the registrar writes it into its entries; none without Certs.
func (ep Endpoint) WatchCA(b *builder.Builder, key reconcile.Request) *builder.Builder {
	if ep.Certs == nil {
		return b
	}
	return b.WatchesRawSource(source.Channel(ep.Certs.Changes(),
		handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request { return []reconcile.Request{key} })))
}

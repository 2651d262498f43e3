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

package applysets

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
)

// The operator applies whatever a set declares, so it may write any type; a
// set's serviceAccountName narrows that to the account's permissions.
// +kubebuilder:rbac:groups=*,resources=*,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=users;groups;serviceaccounts,verbs=impersonate

// sourceIndex indexes sets by the ConfigMaps and Secrets they read: kind/namespace/name.
const sourceIndex = ".spec.sources"

// Options configure both set reconcilers.
type Options struct {
	ToolingVersion        string
	DefaultServiceAccount string
}

// SetupWithManager adds the ApplySet and ClusterApplySet reconcilers to mgr.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	kinds := []struct {
		name   string
		newSet func() applyv1alpha1.Set
		kind   string
	}{
		{"applyset", func() applyv1alpha1.Set { return &applyv1alpha1.ApplySet{} }, "ApplySet"},
		{"clusterapplyset", func() applyv1alpha1.Set { return &applyv1alpha1.ClusterApplySet{} }, "ClusterApplySet"},
	}
	for _, k := range kinds {
		if err := mgr.GetFieldIndexer().IndexField(context.Background(), k.newSet(), sourceIndex, func(obj client.Object) []string {
			sources := obj.(applyv1alpha1.Set).GetSources()
			keys := make([]string, 0, len(sources))
			for _, s := range sources {
				keys = append(keys, sourceKey(string(s.Kind), s.Namespace, s.Name))
			}
			return keys
		}); err != nil {
			return fmt.Errorf("indexing %s sources: %w", k.kind, err)
		}
		r := &Reconciler{
			Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Config: mgr.GetConfig(), Mapper: mgr.GetRESTMapper(),
			Scheme: mgr.GetScheme(), Recorder: mgr.GetEventRecorder(identity.EventReporter), NewSet: k.newSet,
			GroupKind:      schema.GroupKind{Group: applyv1alpha1.GroupVersion.Group, Kind: k.kind},
			ToolingVersion: opts.ToolingVersion, DefaultServiceAccount: opts.DefaultServiceAccount,
		}
		err := ctrl.NewControllerManagedBy(mgr).
			Named(k.name).
			For(k.newSet(), builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{},
				predicate.AnnotationChangedPredicate{}))).
			WatchesMetadata(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(r.setsReading("ConfigMap"))).
			WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.setsReading("Secret"))).
			Complete(r)
		if err != nil {
			return fmt.Errorf("setting up the %s reconciler: %w", k.kind, err)
		}
	}
	return nil
}

func sourceKey(kind, namespace, name string) string {
	return kind + "/" + namespace + "/" + name
}

// setsReading maps a changed ConfigMap or Secret to the sets that read it.
func (r *Reconciler) setsReading(kind string) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		list := &applyv1alpha1.ApplySetList{}
		var requests []reconcile.Request
		key := client.MatchingFields{sourceIndex: sourceKey(kind, obj.GetNamespace(), obj.GetName())}
		if r.GroupKind.Kind == "ApplySet" {
			if err := r.Client.List(ctx, list, key); err != nil {
				return nil
			}
			for _, s := range list.Items {
				requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&s)})
			}
			return requests
		}
		clusterList := &applyv1alpha1.ClusterApplySetList{}
		if err := r.Client.List(ctx, clusterList, key); err != nil {
			return nil
		}
		for _, s := range clusterList.Items {
			requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&s)})
		}
		return requests
	}
}

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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CacheOptions lighten what the manager's cache holds for the set
// reconcilers: the metadata of every ConfigMap, Secret and ServiceAccount in
// the cluster, which they watch to wake the sets that read them. Of each the
// cache keeps its identity alone (keepIdentity): in a cluster of many such
// objects, or a set of many ConfigMap members, their labels, annotations and
// managedFields were most of the operator's memory.
func CacheOptions(opts *cache.Options) {
	if opts.ByObject == nil {
		opts.ByObject = map[client.Object]cache.ByObject{}
	}
	for _, obj := range []client.Object{&corev1.ConfigMap{}, &corev1.Secret{}, &corev1.ServiceAccount{}} {
		opts.ByObject[obj] = cache.ByObject{Transform: keepIdentity}
	}
}

// keepIdentity keeps of an object's metadata what the set reconcilers read
// from the cache: which object it is, whether it exists, and its version
// (sourcesVersion). Anything else read through the cache would be empty;
// read it with the set's own client. A whole object, which nothing here
// caches, only loses its managedFields.
func keepIdentity(obj any) (any, error) {
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return cache.TransformStripManagedFields()(obj)
	}
	return &metav1.PartialObjectMetadata{TypeMeta: m.TypeMeta, ObjectMeta: metav1.ObjectMeta{
		Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
		Generation: m.Generation, DeletionTimestamp: m.DeletionTimestamp,
	}}, nil
}

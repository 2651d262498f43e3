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

// Package declared reads what an ApplySet or ClusterApplySet declares, and
// plans what applying it does, for the operator and for previews alike.
package declared

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// ErrSourceNotFound marks a source that does not exist (yet).
var ErrSourceNotFound = errors.New("source not found")

// Limits bound what one set may declare, so that hostile input costs bounded
// memory and time.
type Limits struct {
	// Bytes bounds what the sources hold together, decompressed.
	Bytes int64
	// Objects bounds the objects the set declares; 0 leaves them unbounded.
	Objects int
}

// decode decodes one source key, having read so many objects before it.
func (l Limits) decode(origin string, data []byte, before int) ([]apply.Input, error) {
	if l.Objects <= 0 {
		return apply.Decode(origin, data)
	}
	if before >= l.Objects {
		// Not one more object: an empty key still passes.
		decoded, err := apply.DecodeAtMost(origin, data, 1)
		if err == nil && len(decoded) > 0 {
			err = &apply.TooManyObjectsError{Limit: l.Objects}
		}
		return decoded, err
	}
	return apply.DecodeAtMost(origin, data, l.Objects-before)
}

// DefaultLimits leave room for the largest public install manifests (a few
// MiB, some hundred objects) and for sets of thousands of objects.
var DefaultLimits = Limits{Bytes: 16 << 20, Objects: 5000}

// Gather decodes the inline resources and every source key, reading the
// sources with reader: the set's own identity, so that a set reads nothing
// its identity could not. A key may hold gzip. What the set declares must
// stay within limits.
func Gather(ctx context.Context, reader client.Reader, set applyv1alpha1.Set, limits Limits) ([]apply.Input, error) {
	limit := limits.Bytes
	var inputs []apply.Input
	for i, r := range set.GetCommonSpec().Resources {
		obj, err := r.Object()
		if err != nil {
			return nil, fmt.Errorf("spec.resources[%d]: %w", i, err)
		}
		inputs = append(inputs, apply.Input{Object: obj, Origin: fmt.Sprintf("spec.resources[%d]", i)})
	}
	for _, src := range set.GetSources() {
		data, err := sourceData(ctx, reader, src)
		if err != nil {
			return nil, err
		}
		for _, key := range slices.Sorted(maps.Keys(data)) {
			origin := sourceName(src) + " key " + key
			plain, err := apply.Inflate(data[key], limit)
			var tooLarge *apply.TooLargeError
			if errors.As(err, &tooLarge) {
				return nil, fmt.Errorf("%s: the set's sources, read up to here, hold %w; "+
					"split them into several sets, or raise the limit (the operator's --max-set-input-size, kubectl applyset's --max-input-size)", origin, err)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", origin, err)
			}
			limit -= int64(len(plain))
			decoded, err := limits.decode(origin, plain, len(inputs))
			var tooMany *apply.TooManyObjectsError
			if errors.As(err, &tooMany) {
				return nil, fmt.Errorf("%s: the set declares more than the limit of %d objects, counted up to here; "+
					"split it into several sets, or raise the limit (the operator's --max-set-objects)", origin, limits.Objects)
			}
			if err != nil {
				return nil, err
			}
			inputs = append(inputs, decoded...)
		}
	}
	return inputs, nil
}

// sourceData reads the keys a source names: its one key, or all of them.
func sourceData(ctx context.Context, reader client.Reader, src applyv1alpha1.ClusterSource) (map[string][]byte, error) {
	key := client.ObjectKey{Namespace: src.Namespace, Name: src.Name}
	data := map[string][]byte{}
	switch src.Kind {
	case applyv1alpha1.SourceKindSecret:
		secret := &corev1.Secret{}
		if err := reader.Get(ctx, key, secret); err != nil {
			return nil, sourceError(src, err)
		}
		for k, v := range secret.Data {
			data[k] = v
		}
	default:
		cm := &corev1.ConfigMap{}
		if err := reader.Get(ctx, key, cm); err != nil {
			return nil, sourceError(src, err)
		}
		for k, v := range cm.Data {
			data[k] = []byte(v)
		}
		for k, v := range cm.BinaryData {
			data[k] = v
		}
	}
	if src.Key == "" {
		return data, nil
	}
	value, ok := data[src.Key]
	if !ok {
		return nil, fmt.Errorf("%s %s/%s has no key %s: %w", src.Kind, src.Namespace, src.Name, src.Key, ErrSourceNotFound)
	}
	return map[string][]byte{src.Key: value}, nil
}

func sourceError(src applyv1alpha1.ClusterSource, err error) error {
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("%s %s/%s does not exist: %w", src.Kind, src.Namespace, src.Name, ErrSourceNotFound)
	}
	if apierrors.IsForbidden(err) {
		resource := schema.GroupResource{Resource: strings.ToLower(string(src.Kind)) + "s"}
		return &apply.AccessError{Missing: []apply.Permission{{Verb: "get", Resource: resource, Namespace: src.Namespace}}}
	}
	return fmt.Errorf("reading %s %s/%s: %w", src.Kind, src.Namespace, src.Name, err)
}

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
	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// ErrSourceNotFound marks a source that does not exist (yet).
var ErrSourceNotFound = errors.New("source not found")

// Limits bound what one set may declare, so that hostile input costs bounded
// memory and time.
type Limits struct {
	// Bytes bounds what the sources hold together, decompressed, and what a
	// kustomize build of theirs produces.
	Bytes int64
	// Objects bounds the objects the set declares; 0 leaves them unbounded.
	// The YAML nodes they decode to are bounded with them: nodesPerObject
	// each, on average.
	Objects int
}

// nodesPerObject is the average number of YAML nodes (mappings, lists, keys,
// values) an object may decode to: far more than a Deployment's 60, and
// room for large CRDs. Decoding holds about 110 bytes a node at its peak,
// so the default 5,000 objects decode within about 110 MiB.
const nodesPerObject = 200

// Decode is what one stream may decode to: l.Objects, and the nodes they
// may hold.
func (l Limits) Decode() apply.DecodeLimits {
	return l.decodeLimits(0, 0)
}

// decodeLimits are what a source key may decode to, so many objects and
// nodes having been decoded before it.
func (l Limits) decodeLimits(objects int, nodes int64) apply.DecodeLimits {
	if l.Objects <= 0 {
		return apply.DecodeLimits{}
	}
	return apply.DecodeLimits{Objects: max(l.Objects-objects, 0), Nodes: l.nodes(), Counted: nodes}
}

func (l Limits) nodes() int64 { return int64(l.Objects) * nodesPerObject }

// DefaultLimits leave room for the largest public install manifests (a few
// MiB, some hundred objects) and for sets of thousands of objects.
var DefaultLimits = Limits{Bytes: 16 << 20, Objects: 5000}

// Gathered is what a set's inputs declare.
type Gathered struct {
	Inputs []apply.Input
	// Digests are, by index in the set's sources, the digests of the
	// artifacts its oci and flux sources were read from; "" for the others.
	Digests []string
	// Revisions are, by index in the set's sources, the revisions of the
	// artifacts its flux sources were read from; "" for the others.
	Revisions []string
}

// GatherWith decodes the inline resources and every source key, reading the
// sources with reader: the set's own identity, so that a set reads nothing
// its identity could not. A key may hold gzip. It fetches the set's oci and
// flux sources through artifacts (nil fetches none), their Secrets and Flux
// objects read with reader too. What the set declares must stay within
// limits.
func GatherWith(ctx context.Context, reader client.Reader, set applyv1alpha1.Set, limits Limits, artifacts *Artifacts) (Gathered, error) {
	g := &gatherer{limits: limits, left: limits.Bytes, line: set.GetNamespace()}
	for i, r := range set.GetCommonSpec().Resources {
		obj, err := r.Object()
		if err != nil {
			return Gathered{}, fmt.Errorf("spec.resources[%d]: %w", i, err)
		}
		g.inputs = append(g.inputs, apply.Input{Object: obj, Origin: fmt.Sprintf("spec.resources[%d]", i)})
	}
	sources := set.GetSources()
	digests, revisions := make([]string, len(sources)), make([]string, len(sources))
	for i, src := range sources {
		var err error
		if src.OCI != nil || src.Flux != nil {
			digests[i], revisions[i], err = g.artifact(ctx, reader, artifacts, i, src)
		} else {
			err = g.keys(ctx, reader, src)
		}
		if err != nil {
			return Gathered{}, err
		}
	}
	return Gathered{Inputs: g.inputs, Digests: digests, Revisions: revisions}, nil
}

// gatherer decodes a set's sources one after the other, within limits.
type gatherer struct {
	limits Limits
	// left is what the sources read so far leave of limits.Bytes.
	left   int64
	inputs []apply.Input
	// nodes are the YAML nodes counted so far.
	nodes int64
	// line is where the set's builds wait for a slot (share).
	line string
}

// keys decodes each key a ConfigMap or Secret source names.
func (g *gatherer) keys(ctx context.Context, reader client.Reader, src applyv1alpha1.ClusterSource) error {
	data, err := sourceData(ctx, reader, src)
	if err != nil {
		return err
	}
	for _, key := range slices.Sorted(maps.Keys(data)) {
		origin := sourceName(src) + " key " + key
		plain, err := apply.Inflate(data[key], g.left)
		var tooLarge *apply.TooLargeError
		if errors.As(err, &tooLarge) {
			return tooLargeError(origin, err)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", origin, err)
		}
		g.left -= int64(len(plain))
		if err := g.decode(origin, plain); err != nil {
			return err
		}
	}
	return nil
}

// artifact decodes the documents an oci or flux source's artifact holds
// under its path, and gives the artifact's digest and revision.
func (g *gatherer) artifact(ctx context.Context, reader client.Reader, artifacts *Artifacts, index int, src applyv1alpha1.ClusterSource) (
	digest, revision string, err error) {
	origin := artifactOrigin(index, src)
	left := 0
	if g.limits.Objects > 0 {
		left = max(g.limits.Objects-len(g.inputs), 0)
	}
	var got fetched
	if src.Flux != nil {
		got, err = artifacts.fetchFlux(ctx, reader, src, share{bytes: g.left, objects: left, line: g.line})
	} else {
		got, err = artifacts.fetch(ctx, reader, src, share{bytes: g.left, objects: left, line: g.line})
	}
	var denied *apply.AccessError
	switch {
	case errors.Is(err, artifact.ErrTooLarge):
		return "", "", tooLargeError(origin, err)
	case errors.As(err, &denied):
		return "", "", err // it names the permission, which names the source
	case err != nil:
		return "", "", fmt.Errorf("spec.sources[%d]: %w", index, err)
	}
	g.left -= got.size
	for _, doc := range got.documents {
		if err := g.decode(origin+doc.Name, doc.Data); err != nil {
			return "", "", err
		}
	}
	return got.digest, got.revision, nil
}

// artifactOrigin is how the origins of an oci or flux source's objects begin.
func artifactOrigin(index int, src applyv1alpha1.ClusterSource) string {
	if src.Flux != nil {
		return FluxOrigin(index, src)
	}
	return ociOrigin(index, src)
}

// decode decodes one stream of documents, within the objects and nodes
// left. An empty stream passes when none are left.
func (g *gatherer) decode(origin string, plain []byte) error {
	limits := g.limits.decodeLimits(len(g.inputs), g.nodes)
	if g.limits.Objects > 0 && limits.Objects == 0 {
		// Not one more object: decode one, and refuse it if there is one.
		limits.Objects = 1
	}
	decoded, nodes, err := apply.DecodeAtMost(origin, plain, limits)
	g.nodes = nodes
	if err == nil && g.limits.Objects > 0 && len(g.inputs)+len(decoded) > g.limits.Objects {
		err = &apply.TooManyObjectsError{Limit: g.limits.Objects}
	}
	var tooMany *apply.TooManyObjectsError
	var tooDeep *apply.TooManyNodesError
	switch {
	case errors.As(err, &tooMany):
		return fmt.Errorf("%s: the set declares more than the limit of %d objects, counted up to here; "+
			"split it into several sets, or raise the limit (the operator's --max-set-objects)", origin, g.limits.Objects)
	case errors.As(err, &tooDeep):
		return budget{fmt.Errorf("%w, %d for each object the set may declare; split the sources into several sets, "+
			"or raise the limit (the operator's --max-set-objects)", err, nodesPerObject)}
	case err != nil:
		return err
	}
	g.inputs = append(g.inputs, decoded...)
	return nil
}

func tooLargeError(origin string, err error) error {
	return fmt.Errorf("%s: the set's sources, read up to here, hold %w; "+
		"split them into several sets, or raise the limit (the operator's --max-set-input-size, kubectl applyset's --max-input-size)", origin, err)
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

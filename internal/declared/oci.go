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

package declared

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/internal/buildgate"
	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
	"github.com/applyset-operator/applyset-operator/internal/kbuild"
	"github.com/applyset-operator/applyset-operator/internal/ociartifact"
)

// ErrArtifactUnavailable marks an OCI or Flux source that could not be
// fetched: a missing tag, an unreachable registry, a host the policy
// refuses, a Flux object without an artifact yet, a tarball that does not
// match its digest. It is never an empty source: nothing is applied or
// pruned, and the fetch is tried again.
var ErrArtifactUnavailable = errors.New("artifact unavailable")

// caKey is the key of an oci source's caSecretRef that holds PEM certificates.
const caKey = "ca.crt"

// Bounds of a fetch besides the set's own limits: a manifest is a few
// hundred bytes, and a set's files are far fewer than its objects allow.
const (
	maxManifestBytes = 256 << 10
	maxArtifactFiles = 10000
	maxPathLength    = 1024
	maxKustomizeNest = 16
)

// Artifacts fetch the OCI and Flux sources of sets, within the hosts an
// admin allows.
type Artifacts struct {
	// Policy is the hosts sets may fetch from; nil lets no oci or flux
	// source fetch.
	Policy *fetchpolicy.Policy
	// BuildMemory bounds the heap of the process a kustomize build of an
	// artifact runs in; 0 is kbuild.DefaultMaxMemory.
	BuildMemory int64
	// Builds, when set, hands out the slots builds run in, one a build,
	// taking the namespaces of the sets whose builds wait in turn; nil
	// lets every build run at once (a preview's one set).
	Builds *buildgate.Gate
	// Cache, when set, keeps recent reads of artifacts, so that sets
	// reading the same files share one build; nil builds every time.
	Cache *kbuild.Cache
	// Observe, when set, is told of every read: from Cache or built.
	Observe func(cached bool)
	// ExternalArtifactHosts are the hosts, also allowed by Policy, whose
	// ExternalArtifacts may be fetched from any path; every other flux
	// artifact only from its object's own path. nil allows none.
	ExternalArtifactHosts *fetchpolicy.Policy
	// Advice says who fetches, in messages; the zero Advice is the operator's.
	Advice Advice
}

// share is what the fetch and build of one source may use of its set's
// bounds, and the line its build waits in for a slot: the set's namespace,
// "" for ClusterApplySets, which share one line as in the work queue.
type share struct {
	bytes   int64
	objects int
	line    string
}

// fetched is what an oci or flux source declared: the artifact's documents
// under its path, its digest (and a flux artifact's revision), and the
// bytes of its files.
type fetched struct {
	documents []kbuild.Document
	digest    string
	revision  string
	size      int64
}

// fetch pulls src's artifact within the bytes and objects the set has left,
// reading its Secrets with reader, the set's identity, and reads its path.
func (a *Artifacts) fetch(ctx context.Context, reader client.Reader, src applyv1alpha1.ClusterSource, left share) (fetched, error) {
	oci := src.OCI
	if a == nil || a.Policy == nil {
		return fetched{}, a.noHost(oci.URL)
	}
	opts, err := a.options(ctx, reader, src)
	if err != nil {
		return fetched{}, err
	}
	if err := a.checkHost(oci); err != nil {
		return fetched{}, err
	}
	pulled, err := ociartifact.Pull(ctx, oci.URL, ociartifact.Version{Tag: oci.Tag, Digest: ptr.Deref(oci.Digest, "")}, opts, pullLimits(left.bytes))
	switch {
	case errors.Is(err, ociartifact.ErrInvalidArtifact):
		return fetched{}, err
	case err != nil:
		return fetched{}, fmt.Errorf("%w: %w", ErrArtifactUnavailable, err)
	}
	documents, err := a.build(ctx, pulled.Files, src.Path, left)
	if err != nil {
		return fetched{}, buildError(fmt.Errorf("%s@%s: %w", oci.URL, pulled.Digest, err))
	}
	return fetched{documents: documents, digest: pulled.Digest, size: pulled.Files.Size()}, nil
}

// checkHost says, before any request, that the admin's policy leaves the
// registry out, and which flag lets it in.
func (a *Artifacts) checkHost(oci *applyv1alpha1.OCISource) error {
	repo, err := ociartifact.ParseURL(oci.URL)
	if err != nil {
		return err
	}
	port := "443"
	if insecure(oci) {
		port = "80"
	}
	if err := a.Policy.CheckHost(repo.Host, port, insecure(oci)); err != nil {
		return fmt.Errorf("%s: %w; %s: %w", oci.URL, err, a.advice().AllowHosts, ErrArtifactUnavailable)
	}
	return nil
}

// noHost says that a, with no policy, fetches from no host, and how a host
// comes to be allowed.
func (a *Artifacts) noHost(url string) error {
	adv := a.advice()
	return fmt.Errorf("%s: %s fetches from no host; %s: %w", url, adv.Fetcher, adv.AllowHosts, ErrArtifactUnavailable)
}

func insecure(oci *applyv1alpha1.OCISource) bool { return oci.Insecure != nil && *oci.Insecure }

// options are how to reach src's registry: its credentials and CA, read
// only from the Secrets it names, as the set's identity.
func (a *Artifacts) options(ctx context.Context, reader client.Reader, src applyv1alpha1.ClusterSource) (ociartifact.Options, error) {
	opts := ociartifact.Options{Policy: a.Policy, Insecure: insecure(src.OCI)}
	if ref := src.OCI.SecretRef; ref != nil {
		data, err := secretKey(ctx, reader, src.Namespace, ref.Name, corev1.DockerConfigJsonKey, corev1.SecretTypeDockerConfigJson)
		if err != nil {
			return opts, err
		}
		opts.DockerConfigJSON = data
	}
	if ref := src.OCI.CASecretRef; ref != nil {
		data, err := secretKey(ctx, reader, src.Namespace, ref.Name, caKey, "")
		if err != nil {
			return opts, err
		}
		opts.CAPEM = data
	}
	return opts, nil
}

// secretKey reads one key of a Secret, of the given type unless that is empty.
func secretKey(ctx context.Context, reader client.Reader, namespace, name, key string, typ corev1.SecretType) ([]byte, error) {
	src := applyv1alpha1.ClusterSource{Source: applyv1alpha1.Source{Kind: applyv1alpha1.SourceKindSecret, Name: name}, Namespace: namespace}
	secret := &corev1.Secret{}
	if err := reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, secret); err != nil {
		return nil, sourceError(src, err)
	}
	if typ != "" && secret.Type != typ {
		return nil, fmt.Errorf("the Secret %s/%s is of type %s, not %s", namespace, name, secret.Type, typ)
	}
	data, ok := secret.Data[key]
	if !ok {
		return nil, fmt.Errorf("the Secret %s/%s has no key %s: %w", namespace, name, key, ErrSourceNotFound)
	}
	return data, nil
}

// pullLimits bound a pull by the bytes the set has left: the layer as
// stored and once decompressed.
func pullLimits(bytes int64) ociartifact.PullLimits {
	return ociartifact.PullLimits{
		MaxManifestBytes: maxManifestBytes,
		MaxLayerBytes:    max(bytes, 1),
		Extract:          artifact.Limits{MaxBytes: max(bytes, 1), MaxFiles: maxArtifactFiles, MaxPathLength: maxPathLength},
	}
}

// buildLimits bound a kustomize build by the bytes and objects the set has
// left; objects <= 0 leaves them to the bytes.
func (a *Artifacts) buildLimits(left share) kbuild.Limits {
	maxObjects := int64(left.objects)
	if left.objects <= 0 {
		maxObjects = 1 << 40
	}
	return kbuild.Limits{MaxObjects: max(maxObjects, 1), MaxBytes: max(left.bytes, 1), MaxDepth: maxKustomizeNest, MaxMemory: a.BuildMemory}
}

// build reads the documents of an artifact's path, from a.Cache when a set
// read the same files before, or else in one of the slots of a.Builds. A
// wait for a slot too long to hold a worker for leaves the artifact
// unavailable for now: the set tries again, with backoff.
func (a *Artifacts) build(ctx context.Context, files *artifact.Tree, path string, left share) ([]kbuild.Document, error) {
	limits := a.buildLimits(left)
	var key kbuild.Key
	if a.Cache != nil {
		key = kbuild.KeyOf(files, path, limits)
		if docs, ok, err := a.cached(key, limits); ok {
			return docs, err
		}
	}
	if a.Builds != nil {
		leave, err := a.Builds.Enter(ctx, left.line)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", err, ErrArtifactUnavailable)
		}
		defer leave()
		// Another set may have built the same while this one waited.
		if docs, ok, err := a.cached(key, limits); ok {
			return docs, err
		}
	}
	docs, err := kbuild.Read(ctx, files, path, limits)
	if err == nil {
		a.Cache.Add(key, docs)
	}
	a.observe(false)
	return docs, err
}

// cached looks key up in a.Cache, counting a hit.
func (a *Artifacts) cached(key kbuild.Key, limits kbuild.Limits) ([]kbuild.Document, bool, error) {
	docs, ok, err := a.Cache.Get(key, limits)
	if ok {
		a.observe(true)
	}
	return docs, ok, err
}

func (a *Artifacts) observe(cached bool) {
	if a.Observe != nil {
		a.Observe(cached)
	}
}

// ociOrigin is how the origins of an oci source's objects begin: the
// source's place in spec.sources and its URL.
func ociOrigin(index int, src applyv1alpha1.ClusterSource) string {
	return fmt.Sprintf("spec.sources[%d] %s ", index, src.OCI.URL)
}

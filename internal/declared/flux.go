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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/internal/fluxsource"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// fetchFlux reads src's Flux object with reader, the set's identity, and
// fetches the artifact its status names within the bytes and objects the
// set has left, as kustomize-controller does: through the admin's host
// policy and from the object's own path only (whoever wrote the status
// chose the URL), its digest checked before it is extracted. An object
// without an artifact yet, and a tarball that does not match its digest,
// are unavailable: tried again, never read as an empty source.
func (a *Artifacts) fetchFlux(ctx context.Context, reader client.Reader, src applyv1alpha1.ClusterSource, left share) (fetched, error) {
	what := fluxName(src)
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(fluxsource.GroupVersion.WithKind(string(src.Flux.Kind)))
	if err := reader.Get(ctx, client.ObjectKey{Namespace: src.Namespace, Name: src.Flux.Name}, obj); err != nil {
		return fetched{}, fluxReadError(src, err)
	}
	found, err := fluxsource.ArtifactOf(obj)
	switch {
	case errors.Is(err, fluxsource.ErrNoArtifact):
		return fetched{}, fmt.Errorf("%w: %w", ErrArtifactUnavailable, err)
	case err != nil:
		return fetched{}, err
	}
	if a == nil || a.Policy == nil {
		return fetched{}, a.noHost(found.URL)
	}
	hosts := fluxsource.Hosts{Policy: a.Policy, External: a.ExternalArtifactHosts}
	if _, err := fluxsource.CheckURL(hosts, found); err != nil {
		return fetched{}, a.refusedURL(what, found.Owner, err)
	}
	files, err := fluxsource.Fetch(ctx, hosts, found, fluxsource.Limits{MaxTarballBytes: max(left.bytes, 1),
		Extract: artifact.Limits{MaxBytes: max(left.bytes, 1), MaxFiles: maxArtifactFiles, MaxPathLength: maxPathLength}})
	switch {
	case errors.Is(err, artifact.ErrTooLarge), errors.Is(err, fluxsource.ErrInvalidArtifact):
		return fetched{}, fmt.Errorf("%s revision %s: %w", what, found.Revision, err)
	case err != nil:
		return fetched{}, fmt.Errorf("%s revision %s: %w: %w", what, found.Revision, ErrArtifactUnavailable, err)
	}
	documents, err := a.build(ctx, files, src.Path, left)
	if err != nil {
		return fetched{}, buildError(fmt.Errorf("%s revision %s: %w", what, found.Revision, err))
	}
	return fetched{documents: documents, digest: found.Digest, revision: found.Revision, size: files.Size()}, nil
}

// refusedURL says why the artifact of what, owner, may not be fetched, and
// how that could change: a host an admin (or the user of a preview) may
// allow, a path no flag frees but an ExternalArtifact's host's, or a url
// at fault whatever the flags.
func (a *Artifacts) refusedURL(what string, owner fluxsource.Owner, err error) error {
	adv := a.advice()
	switch {
	case errors.Is(err, fluxsource.ErrHostRefused):
		return fmt.Errorf("%s names an artifact %s may not fetch: %w; %s: %w", what, adv.Fetcher, err, adv.AllowHosts, ErrArtifactUnavailable)
	case errors.Is(err, fluxsource.ErrForeignPath) && owner.Kind == fluxsource.ExternalArtifact:
		return fmt.Errorf("%s names an artifact %s may not fetch: %w; %s: %w", what, adv.Fetcher, err, adv.AllowExternal, ErrArtifactUnavailable)
	case errors.Is(err, fluxsource.ErrForeignPath):
		return fmt.Errorf("%s names an artifact %s may not fetch: %w: %w", what, adv.Fetcher, err, ErrArtifactUnavailable)
	}
	return fmt.Errorf("%s names an artifact that cannot be fetched: %w: %w", what, err, ErrArtifactUnavailable)
}

// fluxReadError says why src's Flux object could not be read: it does not
// exist, the cluster does not serve its kind, or the set's identity may
// not get it.
func fluxReadError(src applyv1alpha1.ClusterSource, err error) error {
	what := fluxName(src)
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%s does not exist: %w", what, ErrSourceNotFound)
	case meta.IsNoMatchError(err):
		return fmt.Errorf("%s: the cluster serves no %s of %s; install Flux's source-controller: %w",
			what, src.Flux.Kind, fluxsource.GroupVersion, ErrSourceNotFound)
	case apierrors.IsForbidden(err):
		resource := schema.GroupResource{Group: fluxsource.GroupVersion.Group, Resource: fluxsource.Resources[string(src.Flux.Kind)]}
		return &apply.AccessError{Missing: []apply.Permission{{Verb: "get", Resource: resource, Namespace: src.Namespace}}}
	}
	return fmt.Errorf("reading %s: %w", what, err)
}

// fluxName names a flux source as messages do: GitRepository team-a/app.
func fluxName(src applyv1alpha1.ClusterSource) string {
	return fmt.Sprintf("%s %s/%s", src.Flux.Kind, src.Namespace, src.Flux.Name)
}

// FluxOrigin is how the origins of a flux source's objects begin: the
// source's place in spec.sources and its object.
func FluxOrigin(index int, src applyv1alpha1.ClusterSource) string {
	return fmt.Sprintf("spec.sources[%d] %s ", index, fluxName(src))
}

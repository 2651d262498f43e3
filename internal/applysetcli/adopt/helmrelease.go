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

package adopt

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// Helm's storage, as its Secret (and ConfigMap) driver writes it: one record
// per revision, labelled owner=helm, name=RELEASE, version=N, the JSON of the
// release gzipped and base64-encoded under the key "release".
const (
	helmOwnerLabel      = "owner"
	helmNameLabel       = "name"
	helmReleaseKey      = "release"
	helmReleaseType     = "helm.sh/release.v1"
	helmStatusDeployed  = "deployed"
	helmRecordMaxBase64 = 4 << 20
)

// helmReleaseLimit bounds a record after decompression. The API server keeps
// a Secret under about 1 MiB; a hostile one may still inflate a thousandfold.
var helmReleaseLimit int64 = 64 << 20

// helmRelease is the part of Helm's release record adopt reads.
type helmRelease struct {
	Name    string `json:"name"`
	Version int    `json:"version"`
	Info    struct {
		Status string `json:"status"`
	} `json:"info"`
	// Manifest is the rendered YAML Helm applied, hooks excluded.
	Manifest string `json:"manifest"`
}

// decodeHelmRelease reads the value of a record's "release" key: base64 of
// the gzipped JSON (Helm also reads it uncompressed), bounded at every step.
func decodeHelmRelease(value []byte) (*helmRelease, error) {
	if len(value) > helmRecordMaxBase64 {
		return nil, fmt.Errorf("the record holds more than %d bytes", helmRecordMaxBase64)
	}
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(value)))
	n, err := base64.StdEncoding.Decode(raw, bytes.TrimSpace(value))
	if err != nil {
		return nil, fmt.Errorf("the record is not base64: %w", err)
	}
	data, err := apply.Inflate(raw[:n], helmReleaseLimit)
	if err != nil {
		return nil, fmt.Errorf("the record holds %w", err)
	}
	rel := &helmRelease{}
	if err := json.Unmarshal(data, rel); err != nil {
		return nil, fmt.Errorf("the record is no Helm release: %w", err)
	}
	if rel.Name == "" || rel.Version < 1 {
		return nil, errors.New("the record is no Helm release: it has no name or version")
	}
	return rel, nil
}

// helmRevisions are the records of one release, as read.
type helmRevisions []*helmRelease

// deployed is the latest revision Helm deployed: the highest version whose
// status is deployed, as helm status picks it.
func (revs helmRevisions) deployed() *helmRelease {
	var out *helmRelease
	for _, r := range revs {
		if r.Info.Status == helmStatusDeployed && (out == nil || r.Version > out.Version) {
			out = r
		}
	}
	return out
}

// after are the revisions later than rel, in order: an upgrade that failed,
// or one Helm is still running.
func (revs helmRevisions) after(rel *helmRelease) []*helmRelease {
	var out []*helmRelease
	for _, r := range revs {
		if r.Version > rel.Version {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *helmRelease) int { return a.Version - b.Version })
	return out
}

// helmManifestRefs are the objects of a release's manifest. A namespaced
// object that names no namespace is in the release's: adopt clears the
// namespace of cluster-scoped ones when it reads them.
func helmManifestRefs(rel *helmRelease, namespace string) ([]apply.ObjectRef, error) {
	refs, _, err := helmManifestObjects(rel, namespace)
	return refs, err
}

// helmManifestObjects is helmManifestRefs with the objects themselves: what Helm
// declared, which a set that adopts them declares in turn.
func helmManifestObjects(rel *helmRelease, namespace string) ([]apply.ObjectRef, map[apply.ObjectRef]*unstructured.Unstructured, error) {
	origin := "the manifest of revision " + strconv.Itoa(rel.Version)
	inputs, _, err := apply.DecodeAtMost(origin, []byte(rel.Manifest), declared.DefaultLimits.Decode())
	if err != nil {
		return nil, nil, err
	}
	refs := make([]apply.ObjectRef, 0, len(inputs))
	objs := make(map[apply.ObjectRef]*unstructured.Unstructured, len(inputs))
	for _, in := range inputs {
		ref := apply.ObjectRef{GroupKind: in.Object.GroupVersionKind().GroupKind(), Namespace: in.Object.GetNamespace(), Name: in.Object.GetName()}
		if ref.GroupKind.Kind == "" || ref.Name == "" {
			return nil, nil, fmt.Errorf("%s: an object without kind or name", in.Origin)
		}
		if ref.Namespace == "" {
			ref.Namespace = namespace
		}
		refs = append(refs, ref)
		objs[ref] = in.Object
	}
	return refs, objs, nil
}

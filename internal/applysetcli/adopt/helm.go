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
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
)

// helmFieldManager is the field manager Helm 4's CLI applies under: the name
// of its binary.
const helmFieldManager = "helm"

// helmKind is --from helm/RELEASE.
var helmKind = fromKind{typ: "helm", arg: "RELEASE", records: "Helm releases",
	help: []string{
		"the manifest of a Helm release's latest deployed revision, read",
		"from Helm's records (Secrets, or ConfigMaps) in --from-namespace",
	},
	open: func(n named) source { return helmSource{n} }}

// helmSource is the manifest of a Helm release's latest deployed revision,
// read from Helm's own records in the release's namespace: the objects Helm
// applied, and would delete on helm uninstall.
type helmSource struct{ named }

func (s helmSource) read(ctx context.Context, c *cli.Clients) (adoptGroup, error) {
	revs, driver, err := s.revisions(ctx, c)
	if err != nil {
		return adoptGroup{}, err
	}
	rel := revs.deployed()
	if rel == nil {
		return adoptGroup{}, fmt.Errorf("%s: no revision is deployed (%s)", s, statuses(revs))
	}
	refs, objs, err := helmManifestObjects(rel, s.namespace)
	if err != nil {
		return adoptGroup{}, fmt.Errorf("%s: %w", s, err)
	}
	// What Helm applied server-side is its manifest: kubectl takes it over too.
	group := adoptGroup{refs: refs, appliers: []string{helmFieldManager}, handedToKubectl: []string{helmFieldManager}, declared: objs}
	for _, r := range revs.after(rel) {
		if strings.HasPrefix(r.Info.Status, "pending-") {
			group.active = append(group.active, fmt.Sprintf("%s: revision %d is %s: Helm is installing, upgrading or rolling it back "+
				"right now; wait until it ends", s, r.Version, r.Info.Status))
			continue
		}
		group.notes = append(group.notes, fmt.Sprintf("%s: revision %d, after the deployed revision %d, is %s: objects only it created "+
			"are not in revision %d's manifest and are not adopted", s, r.Version, rel.Version, r.Info.Status, rel.Version))
	}
	selector := s.selector()
	group.kubectlNotes = append(group.kubectlNotes,
		fmt.Sprintf("the fields Helm applied server-side (field manager %s) go to kubectl's field manager: its next apply removes those "+
			"the manifests no longer declare, Helm's own labels and annotations (app.kubernetes.io/managed-by, meta.helm.sh/*) too; "+
			"fields Helm 3 wrote client-side stay Helm's", helmFieldManager))
	group.notes = append(group.notes,
		fmt.Sprintf("adopting the objects of revision %d's manifest (helm get manifest %s -n %s); Helm's hooks are not in it and are not adopted",
			rel.Version, s.name, s.namespace),
		fmt.Sprintf("Helm still records %s: helm uninstall %s deletes these objects, --keep-history or not (it keeps only the record), "+
			"and helm upgrade or helm rollback applies them again and deletes those its chart no longer renders; "+
			"to end the release and keep the objects, delete its records: kubectl delete %s -n %s -l %s",
			s, s.name, driver, s.namespace, selector))
	return group, nil
}

// selector picks the release's records, as Helm labels them.
func (s helmSource) selector() string {
	return labels.SelectorFromSet(labels.Set{helmOwnerLabel: "helm", helmNameLabel: s.name}).String()
}

// helmStores are where Helm's drivers keep records, by kind: Secrets by
// default, ConfigMaps with HELM_DRIVER=configmap.
var helmStores = []struct {
	kind   string
	secret bool
}{{kind: "secret", secret: true}, {kind: "configmap"}}

// revisions reads every record of the release: Secrets, Helm's default
// storage, or else ConfigMaps (HELM_DRIVER=configmap). It names the kind it
// read them from.
func (s helmSource) revisions(ctx context.Context, c *cli.Clients) (helmRevisions, string, error) {
	for _, store := range helmStores {
		gvr := schema.GroupVersionResource{Version: "v1", Resource: store.kind + "s"}
		list, err := c.Dynamic.Resource(gvr).Namespace(s.namespace).List(ctx, metav1.ListOptions{LabelSelector: s.selector()})
		if err != nil {
			return nil, "", fmt.Errorf("%s: reading Helm's records: %w", s, err)
		}
		var revs helmRevisions
		for i := range list.Items {
			rel, err := helmRecord(&list.Items[i], store.secret)
			if err != nil {
				return nil, "", fmt.Errorf("%s: %s %s: %w", s, store.kind, list.Items[i].GetName(), err)
			}
			if rel != nil {
				revs = append(revs, rel)
			}
		}
		if len(revs) > 0 {
			return revs, store.kind, nil
		}
	}
	return nil, "", fmt.Errorf("%s: Helm has no record of it (no Secret or ConfigMap labelled %s)", s, s.selector())
}

// helmRecord decodes one record: a Secret of Helm's type, whose data the API
// server returns base64-encoded once more, or a ConfigMap. Another Secret
// that carries the labels is no record, and is skipped.
func helmRecord(obj *unstructured.Unstructured, secret bool) (*helmRelease, error) {
	value, _, _ := unstructured.NestedString(obj.Object, "data", helmReleaseKey)
	if secret {
		if typ, _, _ := unstructured.NestedString(obj.Object, "type"); typ != helmReleaseType {
			return nil, nil
		}
		data, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			return nil, fmt.Errorf("data.%s: %w", helmReleaseKey, err)
		}
		return decodeHelmRelease(data)
	}
	return decodeHelmRelease([]byte(value))
}

// statuses lists the revisions' statuses, for a release none of whose
// revisions is deployed.
func statuses(revs helmRevisions) string {
	out := make([]string, 0, len(revs))
	for _, r := range revs {
		out = append(out, fmt.Sprintf("revision %d is %s", r.Version, r.Info.Status))
	}
	return strings.Join(out, ", ")
}

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
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// The selector source in adopt's help.
const selectorFlags = "-l SELECTOR --kinds KIND,..."

var selectorHelp = []string{
	"kubectl apply --prune -l with --prune-allowlist: the objects of",
	"those kinds that match and carry kubectl's last-applied annotation",
}

// selectorSource is kubectl's legacy prune: the objects of the allowed kinds
// that match the selector and carry kubectl's last-applied annotation.
type selectorSource struct {
	selector  string
	kinds     []schema.GroupKind
	namespace string
}

// newSelectorSource reads -l and --kinds, in the namespace in use.
func newSelectorSource(c *cli.Clients, selector string, kinds []string) (source, error) {
	if _, err := metav1.ParseToLabelSelector(selector); err != nil {
		return nil, fmt.Errorf("-l %q: %w", selector, err)
	}
	gks, err := parseKinds(c, kinds)
	if err != nil {
		return nil, err
	}
	return selectorSource{selector: selector, kinds: gks, namespace: c.Namespace}, nil
}

// parseKinds reads --kinds: Kind.group (Deployment.apps), resource.group
// (deployments.apps) or kubectl's --prune-allowlist form group/version/Kind
// (core/v1/ConfigMap), each a type the API server serves.
func parseKinds(c *cli.Clients, values []string) ([]schema.GroupKind, error) {
	var kinds []schema.GroupKind
	for _, v := range values {
		gk, err := kindOf(c, strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("--kinds %q: %w", v, err)
		}
		kinds = append(kinds, gk)
	}
	return kinds, nil
}

func kindOf(c *cli.Clients, value string) (schema.GroupKind, error) {
	if parts := strings.Split(value, "/"); len(parts) == 3 {
		group := parts[0]
		if group == "core" {
			group = ""
		}
		value = schema.GroupKind{Group: group, Kind: parts[2]}.String()
	}
	gk := schema.ParseGroupKind(value)
	if _, err := c.Mapper.RESTMapping(gk); err == nil {
		return gk, nil
	}
	gvk, err := c.Mapper.KindFor(schema.ParseGroupResource(value).WithVersion(""))
	if err != nil {
		return schema.GroupKind{}, err
	}
	return gvk.GroupKind(), nil
}

func (s selectorSource) String() string {
	return fmt.Sprintf("kubectl apply --prune -l %s of %s", s.selector, kindList(s.kinds))
}

func (s selectorSource) read(ctx context.Context, c *cli.Clients) (adoptGroup, error) {
	var group adoptGroup
	for _, gk := range s.kinds {
		if err := s.readKind(ctx, c, gk, &group); err != nil {
			return group, err
		}
	}
	group.notes = append(group.notes, fmt.Sprintf("kubectl apply --prune -l %s without --applyset still prunes these objects: "+
		"they keep their labels and last-applied annotation; prune with --applyset only from now on", s.selector))
	return group, nil
}

// readKind lists one kind as kubectl's legacy prune does: in the namespace
// in use, or the whole cluster for a cluster-scoped kind.
func (s selectorSource) readKind(ctx context.Context, c *cli.Clients, gk schema.GroupKind, group *adoptGroup) error {
	mapping, err := c.Mapper.RESTMapping(gk)
	if err != nil {
		return err
	}
	namespace := s.namespace
	if !isNamespaced(mapping.Scope.Name()) {
		namespace = ""
	}
	list, err := c.Metadata.Resource(mapping.Resource).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: s.selector})
	if err != nil {
		return fmt.Errorf("listing %s: %w", gk, err)
	}
	for _, item := range list.Items {
		ref := apply.ObjectRef{GroupKind: gk, Namespace: item.Namespace, Name: item.Name}
		if _, ok := item.Annotations[apply.LastAppliedAnnotation]; !ok {
			group.leftOut = append(group.leftOut, ref.String()+": no "+apply.LastAppliedAnnotation+", so kubectl's prune never deleted it")
			continue
		}
		group.refs = append(group.refs, ref)
	}
	return nil
}

func kindList(kinds []schema.GroupKind) string {
	names := make([]string, 0, len(kinds))
	for _, gk := range kinds {
		names = append(names, gk.String())
	}
	return strings.Join(names, ",")
}

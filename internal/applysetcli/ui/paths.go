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

package ui

import (
	"errors"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// clusterScoped stands for the namespace in the path of a cluster-scoped
// parent: "_" is no namespace's name, as namespaces are DNS labels.
const clusterScoped = "_"

// setsPrefix begins the path of every set's page.
const setsPrefix = "/sets/"

// setPath is the page of a parent: /sets/<namespace>/<kind>/<name>, kind as
// ParentName writes it (secret, applyset.apply.applyset.dev), namespace _
// for a cluster-scoped parent.
func setPath(namespace, kind, name string) string {
	if namespace == "" {
		namespace = clusterScoped
	}
	return setsPrefix + url.PathEscape(namespace) + "/" + url.PathEscape(kind) + "/" + url.PathEscape(name)
}

// setPathOf is the page of the parent named kind/name, as Summary.Parent names it.
func setPathOf(namespace, parent string) string {
	kind, name, _ := strings.Cut(parent, "/")
	return setPath(namespace, kind, name)
}

var errNoSetPath = errors.New("not the path of a set's page: want /sets/<namespace or _>/<kind>/<name>")

// parseSetPath reads the escaped path of a set's page: the namespace ("" for
// a cluster-scoped parent), the kind and the name. Each part is checked as
// Kubernetes names are, so nothing else reaches the API server's URLs.
func parseSetPath(escaped string) (namespace, kind, name string, err error) {
	rest, ok := strings.CutPrefix(escaped, setsPrefix)
	if !ok {
		return "", "", "", errNoSetPath
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 {
		return "", "", "", errNoSetPath
	}
	for i, p := range parts {
		if parts[i], err = url.PathUnescape(p); err != nil {
			return "", "", "", errNoSetPath
		}
	}
	return checkSetPath(parts[0], parts[1], parts[2])
}

// checkSetPath checks the unescaped parts of a set's path as Kubernetes
// checks names, so nothing else reaches the API server's URLs: the
// namespace ("" for a cluster-scoped parent), the kind and the name.
func checkSetPath(namespace, kind, name string) (string, string, string, error) {
	if namespace == clusterScoped {
		namespace = ""
	} else if len(validation.IsDNS1123Label(namespace)) > 0 {
		return "", "", "", errors.New("not a namespace: " + namespace)
	}
	// A kind is a lower-case kind with its group, itself a DNS subdomain.
	if len(validation.IsDNS1123Subdomain(kind)) > 0 {
		return "", "", "", errors.New("not a kind: " + kind)
	}
	if len(validation.IsDNS1123Subdomain(name)) > 0 {
		return "", "", "", errors.New("not a parent's name: " + name)
	}
	return namespace, kind, name, nil
}

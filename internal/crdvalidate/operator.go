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

package crdvalidate

import (
	"io/fs"
	"path/filepath"

	"github.com/applyset-operator/applyset-operator/config/crd"
	"github.com/applyset-operator/applyset-operator/config/policy"
)

// Operator returns a validator for the operator's own API: the CRDs and the
// namespace-scope policy built into the binary. The authority policies are
// not in it: they ask about the requesting user's rights.
func Operator() (*Validator, error) {
	var crds [][]byte
	err := fs.WalkDir(crd.Bases, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".yaml" {
			return err
		}
		data, err := fs.ReadFile(crd.Bases, path)
		crds = append(crds, data)
		return err
	})
	if err != nil {
		return nil, err
	}
	v, err := newValidator(crds...)
	if err != nil {
		return nil, err
	}
	scope, err := newPolicy(policy.NamespaceScope)
	if err != nil {
		return nil, err
	}
	return v.WithPolicies(scope), nil
}

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

// Package preview is what a dry run of a set found, a Result of the verbs'
// scaffolds, and how `kubectl applyset diff` and `approve` print it: a
// unified diff per object that would change, as kubectl diff writes it, and
// notes on the rest to standard error.
package preview

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// Preview is what a dry run found, ready to print.
type Preview struct {
	Changes  apply.ChangeSet
	Pruned   apply.ChangeSet
	Declared map[apply.ObjectRef]apply.Object
	Problems []error
	// PruneChecked is true when the preview looked for members to prune.
	PruneChecked bool
	// Deletes are what the prune would delete, with their UIDs.
	Deletes map[apply.ObjectRef]types.UID
	// prunedLive are the members the prune would delete, as ReadPruned read them.
	prunedLive map[apply.ObjectRef]*unstructured.Unstructured
}

// count is how many objects differ.
func (p *Preview) count() int {
	n := 0
	for _, ch := range slices.Concat(p.Changes.Changes, p.Pruned.Changes) {
		if differs(ch.Action) {
			n++
		}
	}
	return n
}

func differs(a apply.Action) bool {
	return a == apply.Created || a == apply.Configured || a == apply.Recreated || a == apply.Pruned
}

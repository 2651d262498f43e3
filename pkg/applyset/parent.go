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

package applyset

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Reasons for the problems a parent can have. They double as Event reasons.
const (
	ReasonIDMissing        = "IDMissing"
	ReasonIDMismatch       = "IDMismatch"
	ReasonToolingMissing   = "ToolingMissing"
	ReasonToolingInvalid   = "ToolingInvalid"
	ReasonHintInvalid      = "HintInvalid"
	ReasonHintMissing      = "HintMissing"
	ReasonNamespaceInvalid = "AdditionalNamespacesInvalid"
)

// ReasonForeignTooling says that a set belongs to another tool than the one
// looking at it, which therefore leaves it as it is.
const ReasonForeignTooling = "ForeignTooling"

// Problem is something wrong with a parent, with a reason a program can match
// and a message a person can act on.
type Problem struct {
	Reason  string
	Message string
}

func (p Problem) Error() string { return p.Reason + ": " + p.Message }

// Parent is what a parent object's labels and annotations say about its set.
type Parent struct {
	Key ParentKey
	// ID is the value of the parent's ID label; empty when the label is missing.
	ID string
	// Tooling is the tool that manages the set; zero when the annotation is missing or invalid.
	Tooling Tooling
	// GroupKinds are the kinds of the contains-group-kinds hint; nil when it is absent.
	GroupKinds sets.Set[schema.GroupKind]
	// GroupResources are the resources of the deprecated hint, read only when
	// contains-group-kinds is absent; nil otherwise.
	GroupResources sets.Set[schema.GroupResource]
	// Scope is where the set may hold members.
	Scope Scope
	// Problems are what is wrong with the parent, in the order found.
	Problems []Problem
}

// ParseParent reads the contract from a parent's labels and annotations. It
// always returns what it could read; Problems lists the rest.
func ParseParent(key ParentKey, labels, annotations map[string]string) Parent {
	p := Parent{Key: key, ID: labels[IDLabel], Scope: Scope{Namespace: key.Namespace, AdditionalNamespaces: sets.New[string]()}}
	switch want := key.ID(); {
	case p.ID == "":
		p.problem(ReasonIDMissing, "the parent has no %s label; it should be %s", IDLabel, want)
	case p.ID != want:
		// A copied ID would let this parent claim another set's members (the
		// KEP's impersonation attack); nothing of the set may be changed.
		p.problem(ReasonIDMismatch, "the %s label is %s but the ID of %s is %s", IDLabel, p.ID, key, want)
	}

	if value, ok := annotations[ToolingAnnotation]; !ok {
		p.problem(ReasonToolingMissing, "the parent has no %s annotation", ToolingAnnotation)
	} else if tooling, err := ParseTooling(value); err != nil {
		p.problem(ReasonToolingInvalid, "%v", err)
	} else {
		p.Tooling = tooling
	}

	if value, ok := annotations[GroupKindsAnnotation]; ok {
		gks, err := ParseGroupKinds(value)
		if err != nil {
			p.problem(ReasonHintInvalid, "%v", err)
		}
		p.GroupKinds = gks
	} else if value, ok := annotations[GroupResourcesAnnotation]; ok {
		grs, err := ParseGroupResources(value)
		if err != nil {
			p.problem(ReasonHintInvalid, "%v", err)
		}
		p.GroupResources = grs
	} else {
		p.problem(ReasonHintMissing, "the parent has neither %s nor %s", GroupKindsAnnotation, GroupResourcesAnnotation)
	}

	if namespaces, err := ParseNamespaces(annotations[AdditionalNamespacesAnnotation]); err != nil {
		p.problem(ReasonNamespaceInvalid, "%v", err)
	} else {
		p.Scope.AdditionalNamespaces = namespaces
	}
	return p
}

func (p *Parent) problem(reason, format string, args ...any) {
	p.Problems = append(p.Problems, Problem{Reason: reason, Message: fmt.Sprintf(format, args...)})
}

// Trusted reports whether the parent's ID is its own, so that its set may be
// changed at all: without it, no member may be pruned or relabelled.
func (p Parent) Trusted() bool {
	return p.ID != "" && p.ID == p.Key.ID()
}

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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Set is what ApplySet and ClusterApplySet have in common, so that one
// reconciler serves both.
// +kubebuilder:object:generate=false
type Set interface {
	metav1.Object
	runtime.Object
	// GetCommonSpec returns the spec fields both kinds share.
	GetCommonSpec() *CommonSpec
	// GetSources returns the sources with their namespaces filled in.
	GetSources() []ClusterSource
	// GetSetStatus returns the status to fill in.
	GetSetStatus() *ApplySetStatus
	// GetServiceAccount returns the namespace and name of the ServiceAccount
	// the set names; both empty when it names none.
	GetServiceAccount() (namespace, name string)
}

// SetList is what ApplySetList and ClusterApplySetList have in common.
// +kubebuilder:object:generate=false
type SetList interface {
	metav1.ListInterface
	runtime.Object
	// GetSets returns the items.
	GetSets() []Set
}

// GetSets implements SetList.
func (in *ApplySetList) GetSets() []Set {
	out := make([]Set, 0, len(in.Items))
	for i := range in.Items {
		out = append(out, &in.Items[i])
	}
	return out
}

// GetSets implements SetList.
func (in *ClusterApplySetList) GetSets() []Set {
	out := make([]Set, 0, len(in.Items))
	for i := range in.Items {
		out = append(out, &in.Items[i])
	}
	return out
}

// GetCommonSpec implements Set.
func (in *ApplySet) GetCommonSpec() *CommonSpec { return &in.Spec.CommonSpec }

// GetSources implements Set: an ApplySet's sources are in its own namespace.
func (in *ApplySet) GetSources() []ClusterSource {
	out := make([]ClusterSource, 0, len(in.Spec.Sources))
	for _, s := range in.Spec.Sources {
		out = append(out, ClusterSource{Source: s, Namespace: in.Namespace})
	}
	return out
}

// GetSetStatus implements Set.
func (in *ApplySet) GetSetStatus() *ApplySetStatus { return &in.Status }

// GetServiceAccount implements Set: an ApplySet's account is in its own namespace.
func (in *ApplySet) GetServiceAccount() (string, string) {
	if in.Spec.ServiceAccountName == "" {
		return "", ""
	}
	return in.Namespace, in.Spec.ServiceAccountName
}

// GetCommonSpec implements Set.
func (in *ClusterApplySet) GetCommonSpec() *CommonSpec { return &in.Spec.CommonSpec }

// GetSources implements Set.
func (in *ClusterApplySet) GetSources() []ClusterSource { return in.Spec.Sources }

// GetSetStatus implements Set.
func (in *ClusterApplySet) GetSetStatus() *ApplySetStatus { return &in.Status }

// GetServiceAccount implements Set.
func (in *ClusterApplySet) GetServiceAccount() (string, string) {
	return in.Spec.ServiceAccountNamespace, in.Spec.ServiceAccountName
}

// PruneEnabled reports whether members no longer declared are deleted (default true).
func (in *CommonSpec) PruneEnabled() bool { return in.Prune == nil || *in.Prune }

// AllowEmptyEnabled reports whether the set may declare nothing and prune every member.
func (in *CommonSpec) AllowEmptyEnabled() bool { return in.AllowEmpty != nil && *in.AllowEmpty }

// DryRunEnabled reports whether changes are only previewed.
func (in *CommonSpec) DryRunEnabled() bool { return in.DryRun != nil && *in.DryRun }

// ForceEnabled reports whether conflicting fields are taken over.
func (in *CommonSpec) ForceEnabled() bool { return in.Force != nil && *in.Force }

// WaitEnabled reports whether Ready waits for the members' health (default true).
func (in *CommonSpec) WaitEnabled() bool { return in.Wait == nil || *in.Wait }

// ReportsDrift tells whether the set leaves drift in place (driftPolicy Report).
func (in *CommonSpec) ReportsDrift() bool { return in.DriftPolicy == DriftPolicyReport }

// ApprovalMode is spec.approval, Auto when unset.
func (in *CommonSpec) ApprovalMode() Approval {
	if in.Approval == "" {
		return ApprovalAuto
	}
	return in.Approval
}

// Suspended reports whether reconciliation is stopped.
func (in *CommonSpec) Suspended() bool { return in.Suspend != nil && *in.Suspend }

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

// Package identity names the operator wherever the cluster records who did
// something: the field managers of its writes (managedFields), the tooling
// annotation of its sets, the reporter of its Events and its leader lease.
// Each write has its own field manager, so that no two kinds of write
// overwrite each other's fields.
package identity

import "github.com/applyset-operator/applyset-operator/pkg/applyset"

const (
	// ToolingName is the tooling name of the operator's own ApplySets
	// (applyset-operator/<version>); kubectl refuses to manage such a set.
	ToolingName = "applyset-operator"

	// MembersFieldManager owns the fields of the members the operator applies.
	MembersFieldManager = "applyset-operator"
	// HintsFieldManager owns the contract fields the operator writes on
	// parents: the ID label, tooling and hints of its own sets, and the
	// contains-group-kinds hint of other tools' parents it is allowed to repair.
	HintsFieldManager = "applyset-operator-hints"
	// InventoryFieldManager writes the chunks of inventories too large for
	// their set's status.
	InventoryFieldManager = "applyset-operator-inventory"
	// WebhooksFieldManager owns the webhook entries the operator registers:
	// one per gated CRD, and the one that checks sets.
	WebhooksFieldManager = "applyset-operator-webhooks"
	// PoliciesFieldManager owns the admission policies and bindings that
	// enforce feature gates when the API server runs them (--featuregate-backend=policy).
	PoliciesFieldManager = "applyset-operator-policies"
	// ExplainFieldManager owns the versions list of CRDs whose owners asked
	// for gate notes in their field descriptions (features.applyset.dev/explain).
	ExplainFieldManager = "applyset-operator-explain"
	// CertsFieldManager writes the caBundle of those entries when the
	// operator rotates its own certificates.
	CertsFieldManager = "applyset-operator-certs"
	// PluginFieldManager writes what `kubectl applyset disband` changes:
	// the part-of labels and the parent's contract fields it removes.
	PluginFieldManager = "kubectl-applyset-plugin"
	// AdoptFieldManager applies the part-of label `kubectl applyset adopt`
	// writes on an object that carries kubectl's last-applied annotation,
	// then hands its entry to KubectlFieldManager: an apply under kubectl's
	// own name would make the API server rewrite that annotation.
	AdoptFieldManager = "kubectl-applyset-adopt"

	// KubectlFieldManager is the field manager of kubectl's server-side
	// apply, unless told otherwise.
	KubectlFieldManager = "kubectl"

	// EventReporter is the reporting controller of every Event the operator records.
	EventReporter = "applyset-operator"
	// LeaderElectionID names the lease replicas of the manager compete for.
	LeaderElectionID = "applyset-operator.applyset.dev"
)

// TrustedAppliers name, per tooling, the field managers whose server-side
// applies of a part-of label the operator and the plugin trust unless told
// more: kubectl's and the operator's own.
func TrustedAppliers() map[string][]string {
	return map[string][]string{"kubectl": {KubectlFieldManager}, ToolingName: {MembersFieldManager}}
}

// Tooling is the tooling of the operator's own sets, at version (empty for a
// comparison: applyset.Tooling.CompatibleWith counts only names).
func Tooling(version string) applyset.Tooling {
	return applyset.Tooling{Name: ToolingName, Version: version}
}

// Owns reports whether parent's tooling is the operator's.
func Owns(parent applyset.Tooling) bool {
	return Tooling("").CompatibleWith(parent)
}

// ReleasesMembersOf reports whether deleting one of the operator's sets may
// touch the members its parent contract names: the ID is the set's own, and
// the tooling is the operator's or not written yet (a set deleted before its
// first reconcile). Another tool's contract is that tool's to keep.
func ReleasesMembersOf(parent applyset.Parent) bool {
	return parent.Trusted() && (Owns(parent.Tooling) || parent.Tooling.Name == "")
}

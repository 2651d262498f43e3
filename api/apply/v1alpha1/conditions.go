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

// MembersFinalizer holds a set until its members are pruned or released.
// Sets that exist carry it: the value never changes.
const MembersFinalizer = "apply.applyset.dev/members"

// Condition types of ApplySet and ClusterApplySet, after kstatus.
const (
	// ConditionReady is True when every declared object is applied and pruning is done.
	ConditionReady = "Ready"
	// ConditionReconciling is True while the operator works towards the spec.
	ConditionReconciling = "Reconciling"
	// ConditionStalled is True when the operator cannot progress without a change by a person.
	ConditionStalled = "Stalled"
)

// Reasons of the conditions; Events about a set carry them too.
const (
	ReasonSucceeded = "Succeeded"
	// ReasonDrifted: Ready, and members carry changes by others that the set
	// leaves in place (spec.driftPolicy Report); status.drift names them.
	ReasonDrifted         = "Drifted"
	ReasonPreviewed       = "Previewed"
	ReasonProgressing     = "Progressing"
	ReasonApplyFailed     = "ApplyFailed"
	ReasonPruneFailed     = "PruneFailed"
	ReasonInvalidInput    = "InvalidInput"
	ReasonSourceNotFound  = "SourceNotFound"
	ReasonIDMismatch      = "IDMismatch"
	ReasonSuspended       = "Suspended"
	ReasonConflict        = "Conflict"
	ReasonDeletionBlocked = "DeletionBlocked"
	// ReasonAccessDenied: the set's identity lacks a permission the change
	// needs; the message names each, and nothing was changed.
	ReasonAccessDenied = "AccessDenied"
	// ReasonNoServiceAccount: the set names no ServiceAccount and no default applies.
	ReasonNoServiceAccount = "NoServiceAccount"
	// ReasonServiceAccountNotFound: the ServiceAccount the set acts as does not exist.
	ReasonServiceAccountNotFound = "ServiceAccountNotFound"
	// ReasonPruneSkipped: members that left the set were kept, because they
	// are not verifiably the set's to delete; the message says why.
	ReasonPruneSkipped = "PruneSkipped"
	// ReasonEmptySource: the set's inputs declare no object while it has
	// members; nothing was applied or pruned (spec.allowEmpty allows it).
	ReasonEmptySource = "EmptySource"
	// ReasonDeleting: the set is deleted, and waits for its members to go.
	ReasonDeleting = "Deleting"
	// ReasonPruning: members that left the set are deleted in reverse apply
	// order, and the set waits for each group to go before the next.
	ReasonPruning = "Pruning"
	// ReasonDependencyNotReady: a set of spec.dependsOn is not Ready for its current spec yet.
	ReasonDependencyNotReady = "DependencyNotReady"
	// ReasonDependencyCycle: the set depends, through its dependencies, on itself.
	ReasonDependencyCycle = "DependencyCycle"
	// ReasonHealthCheckFailed: a member failed, or did not become healthy
	// within spec.timeout.
	ReasonHealthCheckFailed = "HealthCheckFailed"
	// ReasonAwaitingApproval: the plan in status.plan waits for a person to
	// approve its digest (spec.approvedPlan).
	ReasonAwaitingApproval = "AwaitingApproval"
	// ReasonApprovalNotEnforced: the set asks for approval, but the admission
	// policy that lets only approvers approve is not in force; nothing is
	// applied until it is.
	ReasonApprovalNotEnforced = "ApprovalNotEnforced"
	// ReasonAuthorityNotEnforced: the set acts as a named ServiceAccount or
	// reaches other namespaces, but the admission policy that checks its
	// author may (config/policy/authority.yaml) is not in force; nothing is
	// applied until it is.
	ReasonAuthorityNotEnforced = "AuthorityNotEnforced"
	// ReasonInvalidHealthCheck: an expression of spec.healthChecks does not compile.
	ReasonInvalidHealthCheck = "InvalidHealthCheck"
	// ReasonArtifactUnavailable: an oci source could not be fetched (a
	// missing tag, an unreachable registry, a host the operator's policy
	// refuses); nothing was applied or pruned, and the fetch is retried.
	ReasonArtifactUnavailable = "ArtifactUnavailable"
	// ReasonBudgetExceeded: reading, building or checking the set would
	// cost more than one of its per-set budgets (a build's output or memory,
	// the YAML nodes its sources decode to, the CPU of its health checks,
	// the time a reconcile may take); the message names the bound and its
	// value. Nothing more was applied or pruned, and no other set waited.
	ReasonBudgetExceeded = "BudgetExceeded"
	// ReasonInventoryUnprotected: the set records more members than its
	// status holds, and the chunks that would hold them are not protected
	// (the admission policy applyset-inventory is not in force) or have
	// nowhere to go; nothing was applied or pruned.
	ReasonInventoryUnprotected = "InventoryUnprotected"
	// ReasonOutsideWindow: the set's delivery windows (spec.windows, or its
	// namespace's) hold it; nothing was applied or pruned. The message names
	// the deciding window and the next opening.
	ReasonOutsideWindow = "OutsideWindow"
	// ReasonInvalidWindow: a window of the set, or of its namespace, does
	// not parse; nothing was applied or pruned.
	ReasonInvalidWindow = "InvalidWindow"
	// ReasonRecordConflict: the set changed under every write of what a
	// reconcile did (another writer, or a replica or shard taking the set
	// over); the next reconcile reads the set from the API server and
	// records again what it applies.
	ReasonRecordConflict = "RecordConflict"
)

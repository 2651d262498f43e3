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

package setrun

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/internal/health"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// Mode is what a run does.
type Mode int

const (
	// Apply makes the cluster match the set, and prunes what left it.
	Apply Mode = iota
	// Preview shows what Apply would do, with server-side dry-run.
	Preview
	// Delete releases the members of a set being deleted, as its
	// deletionPolicy says.
	Delete
	// DeletePreview shows what Delete would do, with server-side dry-run.
	DeletePreview
)

// previews tells whether the mode writes nothing.
func (m Mode) previews() bool { return m == Preview || m == DeletePreview }

// Run is one run of a set.
type Run struct {
	Mode Mode
	// Set is the set as declared: its spec decides what the run does.
	Set applyv1alpha1.Set
	// Stored is the status the cluster holds for the set, its inventory and
	// what its sources declared last; nil for a set never stored.
	Stored *applyv1alpha1.ApplySetStatus
	// Members are the set's recorded members, which Stored names inline or
	// in chunks (inventory.Load); nil for none.
	Members *inventory.Inventory
	// Layout bounds the members kept in status, and in each chunk beyond
	// that; zero is inventory.DefaultLayout.
	Layout inventory.Layout
	// Parent is the set's KEP-3659 parent as stored: its ID, tooling and hints.
	Parent applyset.Parent
	// Engine applies, prunes and reads members as the run's identity: the
	// set's ServiceAccount in the operator, the user in the plugin.
	Engine *apply.Engine
	// Sources reads the set's ConfigMaps, Secrets and Flux objects, as the
	// same identity.
	Sources client.Reader
	Mapper  meta.RESTMapper
	// Limits and Artifacts bound and fetch what the set declares.
	Limits    declared.Limits
	Artifacts *declared.Artifacts
	// Checker judges whether applied objects a group depends on are ready.
	// Nil compiles the set's checks within DefaultHealthCheckBudget, and
	// stops the run, as the operator stops the set, when they do not compile.
	Checker *health.Checker
	// Approval is the approval the set is held to; "" or Auto for none.
	Approval applyv1alpha1.Approval
	// Window, when not nil, says the set's delivery windows hold it now.
	Window *WindowHold
	// Identity names whom the run acts as in messages of missing
	// permissions, e.g. "ServiceAccount team-a/default"; "" names none.
	Identity string
	// Writes are what the run writes to the set itself; nil in a preview.
	Writes Writes
	// Timed, when not nil, is told how long each step of the run took: the
	// run's own ("read", "plan-prune", "before-writes", "prune",
	// "narrow-hints") and the apply's (apply.ApplyOptions.Timed).
	Timed func(step string, took time.Duration)
}

// Writes are what a run writes to the set itself, besides its members: the
// reconciler's.
type Writes interface {
	// Hints writes the parent's ID, tooling, hints and finalizer, before any
	// member is written.
	Hints(ctx context.Context, hints declared.Hints) error
	// Spend records that the approval, or the window override, of the
	// run's plan was spent, before the writes it allows.
	Spend(ctx context.Context, s Spending) error
	// Chunked is asked before anything is written when the set may record
	// more members than its status holds: an error (the chunks that would
	// hold them are not protected, or have nowhere to go) stops the run.
	Chunked(ctx context.Context) error
	// BeforeDelete is asked before each group of deletes; an error stops them.
	BeforeDelete(ctx context.Context) error
}

// Result is what a run found and did.
type Result struct {
	// Err stopped the run, for Reason; Terminal when only a change of the
	// set, or of what it reads, can fix it.
	Err      error
	Reason   string
	Terminal bool
	// DryRun: nothing was written, in a preview, for a set with spec.dryRun,
	// or while its plan awaits approval.
	DryRun bool
	// Objects are the declared objects, checked.
	Objects []apply.Object
	// Warnings are what the check of the inputs left out; nil when the
	// inputs were not read.
	Warnings *[]string
	// Gathered is what the inputs declared, and the artifacts they were read from.
	Gathered declared.Gathered
	// Sources count the objects each source declared; nil when the inputs
	// were not read or were refused.
	Sources []applyv1alpha1.SourceStatus
	// Applied and Pruned are what the apply and the prune did, or would do.
	Applied apply.ChangeSet
	Pruned  apply.ChangeSet
	// Listed are the recorded members the prune's listing found, by UID, and
	// Foreign the objects that carry the set's label without being its
	// members; nil when nothing was listed.
	Listed  map[apply.ObjectRef]types.UID
	Foreign []apply.Change
	// Deletes are what the prune deletes, by UID.
	Deletes map[apply.ObjectRef]types.UID
	// Approval is nil for a set that applies without approval.
	Approval *Approval
	// Window is nil for a run its delivery windows do not hold.
	Window *WindowGate
	// Inventory is the set's members after a run that wrote; nil after a
	// preview or a stop before the apply.
	Inventory *inventory.Inventory
	// Kept says why a deletion leaves every member as it is; "" when it
	// releases them.
	Kept string
}

// Approval is where a run stands with the approval the set is held to.
type Approval struct {
	Mode applyv1alpha1.Approval
	// Digest names the plan that awaits approval, or that was applied.
	Digest string
	// Awaiting: the plan waits for a person, and nothing it approves was done.
	Awaiting bool
	// Spent: the run applies an approved plan; Recorded once Writes says so.
	Spent, Recorded bool
	// Held are the deletes that wait for approval.
	Held apply.ChangeSet
}

// WindowHold is the hold of a set's delivery windows on a run: the run
// previews, names its plan by digest, and applies only the plan that
// Override names.
type WindowHold struct {
	// Override is the window-override annotation's value: the digest of
	// the one plan it lets through; "" for none.
	Override string
}

// WindowGate is where a run its windows hold stands with them.
type WindowGate struct {
	// Digest names the plan the windows hold, or that the override let
	// through; "" when the plan changes nothing.
	Digest string
	// Held: nothing was written. Overridden: the override let the plan
	// through; Recorded once Writes says it was spent.
	Held, Overridden, Recorded bool
}

// Spending is what a run spends before the writes it allows, on its plan
// of Digest: the approval of Mode, the window override, or both.
type Spending struct {
	Digest   string
	Mode     applyv1alpha1.Approval
	Approval bool
	Override bool
}

// fail is res stopped by err, for reason.
func (res Result) fail(reason string, terminal bool, err error) Result {
	res.Reason, res.Terminal, res.Err = reason, terminal, err
	return res
}

// failed is fail naming the identity when err is a missing permission.
func (r *Run) failed(res Result, reason string, terminal bool, err error) Result {
	var denied *apply.AccessError
	if errors.As(err, &denied) {
		if r.Identity != "" {
			err = fmt.Errorf("%s %w", r.Identity, err)
		}
		reason, terminal = applyv1alpha1.ReasonAccessDenied, false
	}
	return res.fail(reason, terminal, err)
}

// Do runs the set as r.Mode says.
func (r *Run) Do(ctx context.Context) Result {
	switch r.Mode {
	case Delete, DeletePreview:
		return r.release(ctx)
	}
	if r.Checker == nil {
		checker, err := Checker(r.Set.GetCommonSpec().HealthChecks, DefaultHealthCheckBudget)
		if err != nil {
			return Result{Err: err, Reason: applyv1alpha1.ReasonInvalidHealthCheck, Terminal: true}
		}
		r.Checker = checker
	}
	return r.apply(ctx)
}

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

package applysets

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// A set held because an admission policy it relies on is not in force
// (approval, authority, the inventory's) waits for the cluster to change,
// not for the set. A written guard policy or binding is that change: it wakes
// the held sets at once, and for policyWakeWindow after it they look again
// within seconds, as the API server enforces a new binding a moment after it
// is written and the first look may still find it missing. Out of that
// window a held set backs off as any failure does (design 112).

// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingadmissionpolicies;validatingadmissionpolicybindings,verbs=list;watch

// guardPolicies are the admission policies a set can be held for, each
// bound by a binding of its name (config/policy).
var guardPolicies = []string{approvalPolicy, serviceAccountAuthority, clusterServiceAccountAuthority,
	namespaceAuthority, inventoryPolicy}

// policyWakeWindow is how long after a guard policy is written the sets
// held for one look again within seconds.
const policyWakeWindow = time.Minute

// heldForPolicy says whether a set stopped for reason waits for a guard
// policy to be in force.
func heldForPolicy(reason string) bool {
	switch reason {
	case applyv1alpha1.ReasonApprovalNotEnforced, applyv1alpha1.ReasonAuthorityNotEnforced,
		applyv1alpha1.ReasonInventoryUnprotected:
		return true
	}
	return false
}

// isGuardPolicy says whether name is a guard policy's, or its binding's,
// whatever prefix it was installed with.
func isGuardPolicy(name string) bool {
	return slices.ContainsFunc(guardPolicies, func(p string) bool { return strings.HasSuffix(name, p) })
}

// policyWrites remembers when a guard policy or binding was last written;
// both kinds' reconcilers share it.
type policyWrites struct {
	clock clock.PassiveClock
	mu    sync.Mutex
	at    time.Time
}

// wrote records a write of a guard policy now.
func (w *policyWrites) wrote() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.at = w.clock.Now()
}

// since is the time since the last write of a guard policy, and whether
// that was within policyWakeWindow.
func (w *policyWrites) since() (time.Duration, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.at.IsZero() {
		return 0, false
	}
	d := w.clock.Since(w.at)
	return d, d < policyWakeWindow
}

// policyWritten passes the creation of a guard policy or binding and the
// changes of its spec; a deletion puts nothing in force.
var policyWritten = predicate.And[client.Object](predicate.GenerationChangedPredicate{},
	predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return isGuardPolicy(e.Object.GetName()) },
		UpdateFunc:  func(e event.UpdateEvent) bool { return isGuardPolicy(e.ObjectNew.GetName()) },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	})

// wakeOnPolicies has a written guard policy or binding wake the sets held
// for one. The watches read metadata alone: the name says which policy.
func (r *Reconciler) wakeOnPolicies(b *builder.Builder) *builder.Builder {
	opts := builder.WithPredicates(policyWritten)
	return b.WatchesMetadata(&admissionv1.ValidatingAdmissionPolicy{}, handler.EnqueueRequestsFromMapFunc(r.setsHeldForPolicy), opts).
		WatchesMetadata(&admissionv1.ValidatingAdmissionPolicyBinding{}, handler.EnqueueRequestsFromMapFunc(r.setsHeldForPolicy), opts)
}

// setsHeldForPolicy records the write of a guard policy and returns the
// sets of the reconciled kind that wait for one.
func (r *Reconciler) setsHeldForPolicy(ctx context.Context, _ client.Object) []reconcile.Request {
	r.policyWrites.wrote()
	return requestsFor(slices.DeleteFunc(r.listSets(ctx), func(set applyv1alpha1.Set) bool {
		ready := readyOf(set.GetSetStatus())
		return ready == nil || ready.Status != metav1.ConditionFalse || !heldForPolicy(ready.Reason)
	}))
}

// policyRetry is when a set held for a guard policy looks again while a
// guard policy was written a moment ago: soon, and less often as the write
// recedes; false out of policyWakeWindow.
func (r *Reconciler) policyRetry(o outcome) (time.Duration, bool) {
	if o.err == nil || !heldForPolicy(o.reason) || r.policyWrites == nil {
		return 0, false
	}
	since, recent := r.policyWrites.since()
	return waitDelay(since), recent
}

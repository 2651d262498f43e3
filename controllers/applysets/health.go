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
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/health"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// notAppliedYet starts the message of a member left for later.
const notAppliedYet = "not applied yet: "

// maxUnhealthy bounds the members status names one by one.
const maxUnhealthy = 20

// memberHealth is what the members' health says of a set after an apply.
type memberHealth struct {
	summary   health.Summary
	unhealthy []unhealthyMember
}

type unhealthyMember struct {
	ref    apply.ObjectRef
	result health.Result
}

func (h *memberHealth) allCurrent() bool { return h.summary.Current == h.summary.Total() }

// judgeMembers judges every member the apply left, from the objects it
// returned or read: waiting costs no reads of its own. Members the apply
// left for later, for what they depend on, are on their way too.
func judgeMembers(checker *health.Checker, applied apply.ChangeSet) *memberHealth {
	h := &memberHealth{}
	for _, c := range applied.Changes {
		if c.Action == apply.Waiting {
			// Not applied yet, for what it depends on.
			result := health.Result{Status: health.InProgress, Message: notAppliedYet + c.Reason}
			h.summary.Add(result)
			h.unhealthy = append(h.unhealthy, unhealthyMember{ref: c.Ref, result: result})
			continue
		}
		if c.Object == nil {
			continue
		}
		result := checker.Judge(c.Object)
		h.summary.Add(result)
		if result.Status != health.Current {
			h.unhealthy = append(h.unhealthy, unhealthyMember{ref: c.Ref, result: result})
		}
	}
	return h
}

// waitingSince is when the set began to wait: kept from the status while the
// same generation is still waiting, now otherwise.
func waitingSince(status *applyv1alpha1.ApplySetStatus, generation int64, now time.Time) time.Time {
	ready := readyOf(status)
	if ready != nil && ready.ObservedGeneration == generation && status.Health != nil && status.Health.WaitingSince != nil &&
		(ready.Reason == applyv1alpha1.ReasonProgressing || ready.Reason == applyv1alpha1.ReasonHealthCheckFailed) {
		return status.Health.WaitingSince.Time
	}
	return now
}

// healthStatus is status.health for the members' health.
func healthStatus(h *memberHealth, since *time.Time) *applyv1alpha1.HealthStatus {
	s := h.summary
	out := &applyv1alpha1.HealthStatus{
		Summary: s.String(),
		Current: ptr.To(int32(s.Current)), InProgress: ptr.To(int32(s.InProgress)), Failed: ptr.To(int32(s.Failed)),
		Other: ptr.To(int32(s.Terminating + s.Unknown)),
	}
	if since != nil {
		out.WaitingSince = &metav1.Time{Time: since.Truncate(time.Second)}
	}
	for _, u := range h.unhealthy[:min(len(h.unhealthy), maxUnhealthy)] {
		m := applyv1alpha1.UnhealthyMember{ObjectReference: ref(u.ref), Status: string(u.result.Status)}
		if u.result.Message != "" {
			m.Message = text.Truncate(u.result.Message, 1024)
		}
		out.Unhealthy = append(out.Unhealthy, m)
	}
	return out
}

// describeUnhealthy names the unhealthy members, with why, for a message.
func describeUnhealthy(h *memberHealth, status health.Status) string {
	var items []string
	for _, u := range h.unhealthy {
		if status == "" || u.result.Status == status {
			items = append(items, fmt.Sprintf("%s (%s: %s)", u.ref, u.result.Status, u.result.Message))
		}
	}
	return text.Summarize(items, 3)
}

// waitDelay is how long a set that waits (for its members' health, for
// pruned or deleted members to go, for a dependency) waits before it looks
// again: soon at first, then less often, never more than half a minute.
func waitDelay(waited time.Duration) time.Duration {
	return min(max(waited/3, 2*time.Second), 30*time.Second)
}

// waitedAs is how long the set has waited with Ready False for reason: since
// its Ready condition last changed status, 0 when it is not waiting so.
// The time the condition was False for another reason counts too, so the
// delay only grows sooner, never shrinks.
func waitedAs(set applyv1alpha1.Set, reason string, now time.Time) time.Duration {
	ready := readyOf(set.GetSetStatus())
	if ready == nil || ready.Reason != reason || ready.Status != metav1.ConditionFalse {
		return 0
	}
	return max(0, now.Sub(ready.LastTransitionTime.Time))
}

// unhealthyMessage says, for Ready, what the set waits for or what failed.
func unhealthyMessage(h *memberHealth, timedOut bool, timeout time.Duration) (reason, message string) {
	s := h.summary
	switch {
	case s.Failed > 0:
		return applyv1alpha1.ReasonHealthCheckFailed, fmt.Sprintf("%d of %d members failed: %s", s.Failed, s.Total(), describeUnhealthy(h, health.Failed))
	case timedOut:
		return applyv1alpha1.ReasonHealthCheckFailed, fmt.Sprintf("%d of %d members are not healthy after %s (spec.timeout): %s",
			s.Total()-s.Current, s.Total(), timeout, describeUnhealthy(h, ""))
	}
	return applyv1alpha1.ReasonProgressing, fmt.Sprintf("Waiting for %d of %d members: %s", s.Total()-s.Current, s.Total(),
		strings.TrimSpace(describeUnhealthy(h, "")))
}

// judged is o with the health of the members it applied, when the set
// waits for them or left some for later, and stalled when judging them
// spent the set's health budget.
func judged(o outcome, checker *health.Checker, budget uint64, spec *applyv1alpha1.CommonSpec) outcome {
	if o.err == nil && !o.dryRun && (spec.WaitEnabled() || o.applied.Count(apply.Waiting) > 0) {
		o.health = judgeMembers(checker, o.applied)
	}
	if checker.Exhausted() && o.err == nil {
		return failure(o, applyv1alpha1.ReasonBudgetExceeded, true, setrun.HealthBudgetError(budget))
	}
	return o
}

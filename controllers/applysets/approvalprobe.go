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
	"fmt"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// probeTTL is how long a finding that a policy is in force is trusted; a
// finding that it is not is probed again each time.
const probeTTL = time.Minute

// inForce remembers, by key, when a probe last found its policy in force.
type inForce struct {
	clock clock.PassiveClock
	mu    sync.Mutex
	at    map[string]time.Time
}

// fresh says whether the policy was found in force for key within probeTTL.
func (f *inForce) fresh(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	at, known := f.at[key]
	return known && f.clock.Since(at) < probeTTL
}

// found records that the policy is in force for key now.
func (f *inForce) found(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.at == nil {
		f.at = map[string]time.Time{}
	}
	f.at[key] = f.clock.Now()
}

// approvalPolicy is the name of the approval policy
// (config/policy/approval.yaml), whatever prefix it was installed with.
const approvalPolicy = "applyset-approval"

// ApprovalProbeUser is the identity the probe acts as: config/policy lets
// it patch sets and nothing else.
const ApprovalProbeUser = "system:applyset-operator:approval-probe"

// +kubebuilder:rbac:groups="",resources=users,verbs=impersonate,resourceNames=system:applyset-operator:approval-probe

// setPolicyProbe finds out, as the feature gates find out about their
// policies, whether the admission policies over sets are in force: it asks
// the API server for a change of a set in a dry run, as ApprovalProbeUser,
// which may edit sets and nothing more, that the policy refuses where it is
// in force (a change of spec.approvedPlan for the approval policy,
// authorityprobe.go for the authority policies). A change admitted means
// anyone who may edit the set could do what the policy guards. The probe
// does not act as the operator, whose rights an admin may widen.
type setPolicyProbe struct {
	client client.Client
	// inForce is when the policy was last found in force, by what was probed and namespace.
	inForce inForce
}

// newSetPolicyProbe acts as ApprovalProbeUser, impersonated from cfg.
func newSetPolicyProbe(cfg *rest.Config, opts client.Options, clk clock.PassiveClock) (*setPolicyProbe, error) {
	c, _, err := impersonating(cfg, ApprovalProbeUser, opts)
	if err != nil {
		return nil, err
	}
	return &setPolicyProbe{client: c, inForce: inForce{clock: clk}}, nil
}

// check returns nil when the approval policy is in force for set.
func (p *setPolicyProbe) check(ctx context.Context, set applyv1alpha1.Set) error {
	patch := fmt.Sprintf(`{"spec":{"approvedPlan":%q}}`, probeDigest(ptr.Deref(set.GetCommonSpec().ApprovedPlan, "")))
	return p.probe(ctx, set, "approvedPlan", patch, "changes of spec.approvedPlan")
}

// checkOverride returns nil when the approval policy guards the
// window-override annotation for set too: an install of the policy from
// before delivery windows guards approvals only.
func (p *setPolicyProbe) checkOverride(ctx context.Context, set applyv1alpha1.Set) error {
	value := "0"
	if set.GetAnnotations()[applyv1alpha1.WindowOverrideAnnotation] == value {
		value = "1"
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, applyv1alpha1.WindowOverrideAnnotation, value)
	return p.probe(ctx, set, "override", patch, "the "+applyv1alpha1.WindowOverrideAnnotation+" annotation")
}

// probe makes patch to set in a dry run, as ApprovalProbeUser: nil when
// the policy refuses it. what keys the findings; guarded says what the
// policy must guard.
func (p *setPolicyProbe) probe(ctx context.Context, set applyv1alpha1.Set, what, patch, guarded string) error {
	refused, err := p.refused(ctx, set, what, patch, approvalPolicy)
	switch {
	case err != nil:
		return fmt.Errorf("checking that only approvers may write %s (a dry-run change): %w", guarded, err)
	case refused:
		return nil
	case what == "approvedPlan":
		return errApprovalNotEnforced
	}
	return fmt.Errorf("the admission policy applyset-approval does not guard %s, so anyone who may edit the set could "+
		"override its windows; install config/policy (applyset-approval) of this release", guarded)
}

// refused makes patch to set in a dry run, as ApprovalProbeUser, and tells
// whether the admission policy named policy (whatever prefix it was
// installed with) refused it. what keys the findings, with the namespace.
func (p *setPolicyProbe) refused(ctx context.Context, set applyv1alpha1.Set, what, patch, policy string) (bool, error) {
	key := what + "/" + set.GetNamespace()
	if p.inForce.fresh(key) {
		return true, nil
	}
	err := p.client.Patch(ctx, set.DeepCopyObject().(client.Object), client.RawPatch(types.MergePatchType, []byte(patch)), client.DryRunAll)
	switch {
	case err == nil:
		return false, nil
	case refusedBy(err, policy):
		p.inForce.found(key)
		return true, nil
	}
	return false, err
}

// refusedBy tells whether err is the refusal of the admission policy named
// policy, whatever prefix it was installed with.
func refusedBy(err error, policy string) bool {
	return (apierrors.IsForbidden(err) || apierrors.IsInvalid(err)) && strings.Contains(err.Error(), policy+"' with binding")
}

// probeDigest is a well-formed digest other than current, so that the
// probe changes spec.approvedPlan.
func probeDigest(current string) string {
	digest := "sha256:" + strings.Repeat("0", 64)
	if current == digest {
		digest = "sha256:" + strings.Repeat("1", 64)
	}
	return digest
}

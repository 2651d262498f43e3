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
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// The authority policies (config/policy/authority.yaml) keep an author from
// pointing a set past their own rights. Where one is not in force, a tenant
// who may edit sets could make the operator act as any ServiceAccount of
// their namespace, or reach namespaces they may not write: such a set waits.
const (
	serviceAccountAuthority        = "applyset-service-account-authority"
	clusterServiceAccountAuthority = "clusterapplyset-service-account-authority"
	namespaceAuthority             = "applyset-namespace-authority"
)

// authorityProbeName is a name no one may impersonate or create sets in:
// the probe's dry-run change points the set at it, which the policies
// refuse the probe user.
const authorityProbeName = "applyset-authority-probe"

// errAuthorityNotEnforced says which authority policy a set relies on is not in force.
var errAuthorityNotEnforced = errors.New("an admission policy the set relies on is not in force")

// checkAuthority returns nil when the authority policies set relies on are
// in force: the one over the ServiceAccount it names (other than an
// ApplySet's default one), and, for an ApplySet reaching other namespaces,
// the one over spec.additionalNamespaces.
func (p *setPolicyProbe) checkAuthority(ctx context.Context, set applyv1alpha1.Set, defaultAccount string) error {
	_, name := set.GetServiceAccount()
	cluster := set.GetNamespace() == ""
	if cluster && name != "" || !cluster && name != "" && name != defaultAccount {
		policy := serviceAccountAuthority
		if cluster {
			policy = clusterServiceAccountAuthority
		}
		patch := fmt.Sprintf(`{"spec":{"serviceAccountName":%q}}`, authorityProbeName)
		if err := p.expect(ctx, set, "serviceAccount", patch, policy, "act as the ServiceAccount "+name); err != nil {
			return err
		}
	}
	if namespaces := set.GetCommonSpec().AdditionalNamespaces; !cluster && len(namespaces) > 0 {
		// One namespace added to those the set has (at most 16), and no inline
		// resource, so that no other policy refuses the change first.
		added, err := json.Marshal(append(slices.Clone(namespaces[:min(len(namespaces), 15)]), authorityProbeName))
		if err != nil {
			return err
		}
		patch := fmt.Sprintf(`{"spec":{"resources":[],"additionalNamespaces":%s}}`, added)
		return p.expect(ctx, set, "additionalNamespaces", patch, namespaceAuthority, "reach the namespaces of spec.additionalNamespaces")
	}
	return nil
}

// expect returns nil when policy refuses the probe's patch of set.
func (p *setPolicyProbe) expect(ctx context.Context, set applyv1alpha1.Set, what, patch, policy, guarded string) error {
	refused, err := p.refused(ctx, set, what, patch, policy)
	switch {
	case err != nil:
		return fmt.Errorf("checking that the admission policy %s is in force (a dry-run change): %w", policy, err)
	case !refused:
		return fmt.Errorf("%w: %s, so anyone who may edit the set could make it %s, whatever their own rights; "+
			"install config/policy (%s)", errAuthorityNotEnforced, policy, guarded, policy)
	}
	return nil
}

// authorityPhase holds a set whose author's authority no policy checks.
func (r *Reconciler) authorityPhase(ctx context.Context, s *scope) bool {
	if r.authority == nil {
		return true
	}
	if err := r.authority(ctx, s.set, r.opts.DefaultServiceAccount); err != nil {
		return s.stop(applyv1alpha1.ReasonAuthorityNotEnforced, false, err)
	}
	return true
}

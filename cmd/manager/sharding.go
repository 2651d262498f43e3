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

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/identity"
)

// The controllers --controllers may name.
const (
	// controllerApplySets are the ApplySet and ClusterApplySet reconcilers,
	// the work that --watch-label-selector splits between shards.
	controllerApplySets = "applysets"
	// controllerParents are the parent and orphan reconcilers: they look at
	// every parent and member in the cluster, so one Deployment runs them.
	controllerParents = "parents"
	// controllerFeatureGates is the CustomFeatureGates reconciler, which
	// owns the admission policies and webhook entries: one Deployment runs it,
	// with the webhook servers and their certificate rotation.
	controllerFeatureGates = "featuregates"
)

var allControllers = []string{controllerApplySets, controllerParents, controllerFeatureGates}

// shardOptions split the sets between Deployments of the operator as Flux's
// controllers are sharded: each Deployment reconciles the sets its
// --watch-label-selector matches, by convention sharding.fluxcd.io/key=NAME
// on each extra shard and !sharding.fluxcd.io/key on the first, and only the
// first runs the controllers that must run once in a cluster.
type shardOptions struct {
	watchLabelSelector string
	controllers        string

	// selector is watchLabelSelector, parsed by validate; nil for none.
	selector labels.Selector
	// running is controllers, parsed by validate.
	running []string
}

func (o *shardOptions) bindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.watchLabelSelector, "watch-label-selector", "",
		"Reconcile only the ApplySets and ClusterApplySets whose labels match this selector, as Flux's controllers do: "+
			"sharding.fluxcd.io/key=shard1 on a second shard, !sharding.fluxcd.io/key on the first. Members, sources, "+
			"ServiceAccounts and parents are watched whatever their labels. Empty: every set.")
	fs.StringVar(&o.controllers, "controllers", strings.Join(allControllers, ","),
		"Comma-separated controllers to run: applysets (the ApplySet and ClusterApplySet reconcilers), parents "+
			"(the parent and orphan reconcilers, which look at every parent in the cluster) and featuregates "+
			"(CustomFeatureGates, with the webhooks and their certificate rotation). Only one Deployment may run "+
			"parents and featuregates; a second shard runs applysets with --disable-webhooks.")
}

// validate parses the selector and the controllers; webhooksDisabled is
// --disable-webhooks.
func (o *shardOptions) validate(webhooksDisabled bool) error {
	o.selector = nil
	if strings.TrimSpace(o.watchLabelSelector) != "" {
		selector, err := labels.Parse(o.watchLabelSelector)
		if err != nil {
			return fmt.Errorf("--watch-label-selector=%s: %w; want a label selector such as "+
				"sharding.fluxcd.io/key=shard1 or !sharding.fluxcd.io/key", o.watchLabelSelector, err)
		}
		o.selector = selector
	}
	o.running = splitList(o.controllers)
	if len(o.running) == 0 {
		return fmt.Errorf("--controllers is empty: name one or more of %s", strings.Join(allControllers, ", "))
	}
	for _, name := range o.running {
		if !slices.Contains(allControllers, name) {
			return fmt.Errorf("--controllers: unknown controller %q: want %s", name, strings.Join(allControllers, ", "))
		}
	}
	if !o.runs(controllerFeatureGates) && !webhooksDisabled {
		// The webhook servers enforce the feature gates' webhook backend
		// and share the certificate the first Deployment rotates.
		return fmt.Errorf("--controllers=%s leaves out featuregates: add --disable-webhooks, "+
			"the webhooks are served by the Deployment that runs featuregates", o.controllers)
	}
	return nil
}

// runs reports whether the manager runs the named controller.
func (o *shardOptions) runs(controller string) bool {
	return slices.Contains(o.running, controller)
}

// managerOptions restricts the manager's cache of ApplySets and
// ClusterApplySets to the selector, as Flux restricts its own kinds: a set
// that stops matching leaves the cache, and its reconciler, finding it gone,
// only forgets it. It also gives each selector a lease of its own, so the
// replicas of one shard elect a leader among themselves, not with the other
// shards.
func (o *shardOptions) managerOptions(opts *ctrl.Options) {
	opts.LeaderElectionID = o.leaderElectionID()
	if o.selector == nil {
		return
	}
	if opts.Cache.ByObject == nil {
		opts.Cache.ByObject = map[client.Object]cache.ByObject{}
	}
	for _, set := range []client.Object{&applyv1alpha1.ApplySet{}, &applyv1alpha1.ClusterApplySet{}} {
		opts.Cache.ByObject[set] = cache.ByObject{Label: o.selector}
	}
}

// leaderElectionID is the operator's lease name, with a hash of the
// selector when there is one: a lease name cannot hold "!" or "=".
func (o *shardOptions) leaderElectionID() string {
	if o.selector == nil {
		return identity.LeaderElectionID
	}
	sum := sha256.Sum256([]byte(o.selector.String()))
	return identity.LeaderElectionID + "-" + hex.EncodeToString(sum[:4])
}

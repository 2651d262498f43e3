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
	"flag"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
	"github.com/applyset-operator/applyset-operator/internal/identity"
)

// parseFlags is the options args give the manager's flags, bound as main
// binds them, or why the flags are refused.
func parseFlags(args ...string) (options, error) {
	var o options
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	o.bindFlags(fs)
	(&zap.Options{}).BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	return o, o.validate()
}

func TestClientRateFlags(t *testing.T) {
	tests := []struct {
		args    []string
		qps     float64
		burst   int
		wantErr string
	}{
		{args: nil, qps: -1, burst: 100},
		{args: []string{"--kube-api-qps=200", "--kube-api-burst=400"}, qps: 200, burst: 400},
		{args: []string{"--kube-api-qps=0"}, wantErr: "must be positive"},
		{args: []string{"--kube-api-qps=50", "--kube-api-burst=0"}, wantErr: "with a positive --kube-api-burst"},
		{args: []string{"--kube-api-burst=0"}, qps: -1, burst: 0},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			o, err := parseFlags(tt.args...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want an error saying %q, got %v", tt.wantErr, err)
				}
				return
			}
			if err != nil || o.kubeAPIQPS != tt.qps || o.kubeAPIBurst != tt.burst {
				t.Errorf("got qps %v burst %d err %v, want %v %d", o.kubeAPIQPS, o.kubeAPIBurst, err, tt.qps, tt.burst)
			}
		})
	}
}

func TestShardingFlags(t *testing.T) {
	tests := []struct {
		args     []string
		selector string // the parsed selector, "" for none
		running  []string
		wantErr  string
	}{
		{args: nil, running: allControllers},
		{args: []string{"--watch-label-selector=sharding.fluxcd.io/key=shard1", "--controllers=applysets", "--disable-webhooks"},
			selector: "sharding.fluxcd.io/key=shard1", running: []string{"applysets"}},
		{args: []string{"--watch-label-selector=!sharding.fluxcd.io/key"}, selector: "!sharding.fluxcd.io/key", running: allControllers},
		{args: []string{"--watch-label-selector=sharding.fluxcd.io/key in (shard1, shard2)"},
			selector: "sharding.fluxcd.io/key in (shard1,shard2)", running: allControllers},
		{args: []string{"--watch-label-selector=  "}, running: allControllers},
		{args: []string{"--watch-label-selector=sharding.fluxcd.io/key=shard 1"}, wantErr: "want a label selector such as"},
		{args: []string{"--watch-label-selector=!"}, wantErr: "--watch-label-selector=!:"},
		{args: []string{"--watch-label-selector=sharding.fluxcd.io/key=-shard1"}, wantErr: "--watch-label-selector"},
		{args: []string{"--controllers=applysets"}, wantErr: "add --disable-webhooks"},
		{args: []string{"--controllers=applysets,orphans", "--disable-webhooks"}, wantErr: `unknown controller "orphans"`},
		{args: []string{"--controllers= , "}, wantErr: "--controllers is empty"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			o, err := parseFlags(tt.args...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want an error saying %q, got %v", tt.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			selector := ""
			if o.shard.selector != nil {
				selector = o.shard.selector.String()
			}
			if selector != tt.selector || !slices.Equal(o.shard.running, tt.running) {
				t.Errorf("got selector %q running %v, want %q %v", selector, o.shard.running, tt.selector, tt.running)
			}
		})
	}
}

func TestShardLeasesAndCaches(t *testing.T) {
	parse := func(args ...string) ctrl.Options {
		t.Helper()
		o, err := parseFlags(append(args, "--disable-webhooks")...)
		if err != nil {
			t.Fatal(err)
		}
		var mgrOpts ctrl.Options
		o.shard.managerOptions(&mgrOpts)
		return mgrOpts
	}
	unsharded := parse()
	first := parse("--watch-label-selector=!sharding.fluxcd.io/key")
	second := parse("--watch-label-selector=sharding.fluxcd.io/key=shard1", "--controllers=applysets")
	third := parse("--watch-label-selector=sharding.fluxcd.io/key=shard2", "--controllers=applysets")
	again := parse("--watch-label-selector= sharding.fluxcd.io/key = shard1 ", "--controllers=applysets")

	if unsharded.LeaderElectionID != identity.LeaderElectionID || unsharded.Cache.ByObject != nil {
		t.Errorf("without a selector: lease %q, cache %v; want the operator's lease and a full cache", unsharded.LeaderElectionID, unsharded.Cache.ByObject)
	}
	leases := map[string]bool{}
	for _, o := range []ctrl.Options{unsharded, first, second, third} {
		if errs := validation.IsDNS1123Subdomain(o.LeaderElectionID); len(errs) > 0 {
			t.Errorf("lease %q is not a valid name: %v", o.LeaderElectionID, errs)
		}
		leases[o.LeaderElectionID] = true
	}
	if len(leases) != 4 {
		t.Errorf("shards share a lease: %v", leases)
	}
	if again.LeaderElectionID != second.LeaderElectionID {
		t.Errorf("the same selector, written differently, gave leases %q and %q", again.LeaderElectionID, second.LeaderElectionID)
	}

	// Only the set kinds are restricted: members, sources, ServiceAccounts
	// and parents are seen whatever their labels.
	if len(second.Cache.ByObject) != 2 {
		t.Fatalf("want the two set kinds restricted, got %v", second.Cache.ByObject)
	}
	for obj, by := range second.Cache.ByObject {
		switch obj.(type) {
		case *applyv1alpha1.ApplySet, *applyv1alpha1.ClusterApplySet:
		default:
			t.Errorf("%T is restricted", obj)
		}
		for ls, want := range map[string]bool{"sharding.fluxcd.io/key=shard1": true, "sharding.fluxcd.io/key=shard2": false, "": false} {
			set, _ := labels.ConvertSelectorToLabelsMap(ls)
			if by.Label.Matches(set) != want {
				t.Errorf("selector %s on labels %q: want %v", by.Label, ls, want)
			}
		}
	}
}

func TestReplicaUserAgent(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // the replica the user agent names
	}{
		{args: nil},
		{args: []string{"--replica-sharding", "--replica-name", "r-1"}, want: "r-1"},
	} {
		o, err := parseFlags(tc.args...)
		if err != nil {
			t.Fatal(err)
		}
		cfg := &rest.Config{}
		if err := o.replicas.identify(cfg); err != nil {
			t.Fatal(err)
		}
		if got := replicaOf(cfg.UserAgent); got != tc.want {
			t.Errorf("%v: user agent %q names replica %q, want %q", tc.args, cfg.UserAgent, got, tc.want)
		}
		// The API server names unnamed field managers after the first word.
		if tc.want != "" && !strings.HasPrefix(cfg.UserAgent, rest.DefaultKubernetesUserAgent()+" ") {
			t.Errorf("%v: user agent %q does not start with client-go's default", tc.args, cfg.UserAgent)
		}
	}
}

func TestArtifactHostFlags(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		allowed  string // a host the allowed policy must allow, "" for no policy
		external string // a host the external policy must allow, "" for no policy
		wantErr  string
	}{
		{args: nil},
		{args: []string{"--artifact-allowed-hosts=http://source-controller.flux-system.svc.cluster.local."},
			allowed: "source-controller.flux-system.svc.cluster.local"},
		{args: []string{"--artifact-allowed-hosts=source-controller.flux-system,producer.example.com", "--external-artifact-hosts= producer.example.com "},
			allowed: "producer.example.com", external: "producer.example.com"},
		{args: []string{"--external-artifact-hosts=producer.example.com"}, wantErr: "--artifact-allowed-hosts allows none"},
		{args: []string{"--artifact-allowed-hosts=a.example.com", "--external-artifact-hosts=ftp://producer.example.com"},
			wantErr: "--external-artifact-hosts: allowed host"},
		{args: []string{"--artifact-allowed-hosts=a.example.com/path"}, wantErr: "--artifact-allowed-hosts: allowed host"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			o, err := parseFlags(tc.args...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want an error saying %q, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			allowed, external, err := o.artifactPolicies()
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []struct {
				policy *fetchpolicy.Policy
				host   string
			}{{allowed, tc.allowed}, {external, tc.external}} {
				if (p.policy == nil) != (p.host == "") || p.policy != nil && p.policy.CheckHost(p.host, "443", false) != nil {
					t.Errorf("policy %v does not allow %q", p.policy, p.host)
				}
			}
		})
	}
}

func TestBuildFlags(t *testing.T) {
	o, err := parseFlags()
	if err != nil || o.maxBuilds != 0 || o.maxBuildMemory.Value() != 256<<20 {
		t.Fatalf("defaults: %d builds of %s, %v; want 0 (from the container's memory) of 256Mi", o.maxBuilds, &o.maxBuildMemory, err)
	}
	if o, err := parseFlags("--max-builds=3"); err != nil || o.maxBuilds != 3 {
		t.Fatalf("--max-builds=3: %d, %v", o.maxBuilds, err)
	}
	if _, err := parseFlags("--max-builds=-1"); err == nil || !strings.Contains(err.Error(), "--max-builds must not be negative") {
		t.Fatalf("--max-builds=-1: %v", err)
	}
	if o.buildCache.Value() != 64<<20 {
		t.Errorf("--build-cache-size defaults to %s, want 64Mi", &o.buildCache)
	}
	if o, err := parseFlags("--build-cache-size=0"); err != nil || o.buildCache.Value() != 0 {
		t.Errorf("--build-cache-size=0 (keep none): %s, %v", &o.buildCache, err)
	}
	if _, err := parseFlags("--build-cache-size=-1Mi"); err == nil || !strings.Contains(err.Error(), "want a size such as 64Mi, or 0") {
		t.Errorf("--build-cache-size=-1Mi: %v", err)
	}
}

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

package reliability

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// Two replicas elect a leader. The leader is cut off from the API server for
// its lease renewals only, mid-apply, as a partition would: it must stop
// writing once it loses the lease, and the other must take over and finish.
var _ = Describe("Two replicas with leader election", func() {
	It("hand over mid-apply: the old leader writes nothing after the new one holds the lease", func(ctx context.Context) {
		n := envInt("RELIABILITY_OBJECTS", 300)
		const leaseID = "applyset-operator-reliability"
		apiServer, err := url.Parse(env.Config.Host)
		Expect(err).NotTo(HaveOccurred())
		proxy, err := testenv.StartProxy(apiServer.Host)
		Expect(err).NotTo(HaveOccurred())
		defer func() { Expect(proxy.Cut()).To(Succeed()) }()

		writesA := &writeLog{}
		cfgA := rest.CopyConfig(env.Config)
		cfgA.Wrap(writesA.wrap)
		leaseCfgA := rest.CopyConfig(env.Config)
		leaseCfgA.Host = "https://" + proxy.Addr
		a, errA := startReplica(cfgA, leaseCfgA, leaseID)
		Eventually(a.Elected()).WithTimeout(time.Minute).Should(BeClosed())
		b, errB := startReplica(rest.CopyConfig(env.Config), nil, leaseID)
		defer b.stop()

		home, other := tenantNamespace(ctx), tenantNamespace(ctx)
		grantIn(ctx, other, home)
		bystanders := createBystanders(ctx, home, other)
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: home, Name: "big"}}
		set.Spec.AdditionalNamespaces = []string{other}
		set.Spec.Resources = declare(n, other)
		id := applyset.ParentKey{GroupKind: applyv1alpha1.GroupVersion.WithKind("ApplySet").GroupKind(), Namespace: home, Name: set.Name}.ID()
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(func() int { return len(memberRefs(ctx, id, home, other)) }).WithPolling(20 * time.Millisecond).
			Should(BeNumerically(">=", n/4))

		cut := time.Now()
		Expect(proxy.Cut()).To(Succeed())
		Eventually(errA).WithTimeout(time.Minute).Should(Receive(MatchError(ContainSubstring("leader election lost"))))
		stopped := time.Now()
		Eventually(b.Elected()).WithTimeout(time.Minute).Should(BeClosed())
		taken := time.Now()
		Eventually(ready(ctx, set)).WithTimeout(2 * time.Minute).Should(BeTrue())
		converged := time.Now()
		Consistently(errB).WithTimeout(time.Second).ShouldNot(Receive())

		late := writesA.after(taken)
		AddReportEntry("leader hand-over", fmt.Sprintf("%d objects: old leader stopped %s after the cut, new leader held the lease %s after it, "+
			"set Ready %s after it; old leader's writes %d in all, %d after the hand-over",
			n, stopped.Sub(cut).Round(10*time.Millisecond), taken.Sub(cut).Round(10*time.Millisecond),
			converged.Sub(cut).Round(10*time.Millisecond), writesA.count(), late))
		Expect(writesA.count()).To(BeNumerically(">", 0), "the old leader never wrote: the cut came too late to show anything")
		Expect(late).To(BeZero(), "the old leader wrote after the new one held the lease")
		Expect(lost(ctx, id, n, home, other)).To(BeZero())
		Expect(gone(ctx, bystanders)).To(BeZero())
	})
})

// replica is a manager of the operator that takes part in leader election.
type replica struct {
	manager.Manager
	stop func()
}

// startReplica starts a replica whose lease requests, when leaseCfg is set,
// go through it; its errors arrive on the channel.
func startReplica(cfg, leaseCfg *rest.Config, leaseID string) (*replica, chan error) {
	GinkgoHelper()
	scheme, err := testenv.NewScheme() // the manager adds to it: see NewScheme
	Expect(err).NotTo(HaveOccurred())
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		Controller:              config.Controller{SkipNameValidation: ptr.To(true)},
		LeaderElection:          true,
		LeaderElectionID:        leaseID,
		LeaderElectionNamespace: "default",
		LeaderElectionConfig:    leaseCfg,
		LeaseDuration:           ptr.To(4 * time.Second),
		RenewDeadline:           ptr.To(3 * time.Second),
		RetryPeriod:             ptr.To(500 * time.Millisecond),
	})
	Expect(err).NotTo(HaveOccurred())
	Expect(setupOperator(mgr)).To(Succeed())
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() {
		if err := mgr.Start(ctx); err != nil {
			errs <- err
		}
	}()
	return &replica{Manager: mgr, stop: cancel}, errs
}

// writeLog records when a client's writes were sent.
type writeLog struct {
	mu    sync.Mutex
	times []time.Time
}

func (w *writeLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.mu.Lock()
			w.times = append(w.times, time.Now())
			w.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

func (w *writeLog) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.times)
}

// after counts the writes sent after t.
func (w *writeLog) after(t time.Time) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, at := range w.times {
		if at.After(t) {
			n++
		}
	}
	return n
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

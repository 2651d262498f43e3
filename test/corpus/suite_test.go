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

// Package corpus installs public manifest sets nobody here wrote twice, with
// kubectl apply --server-side on one control plane and as ApplySets on
// another, and checks that the two clusters hold the same objects and that
// the operator then leaves them alone. testdata/README.md names the sets.
package corpus

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/controllers/parents"
	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// artifactHosts are the hosts the operator may fetch artifacts from: the
// test registries, on loopback.
var artifactHosts = []string{"http://127.0.0.1"}

var (
	// byKubectl is the control plane kubectl installs into, byOperator the
	// one the operator installs into.
	byKubectl, byOperator *testenv.Env
	// operatorRequests records every request the operator makes.
	operatorRequests = &requestLog{}
)

func TestCorpus(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Corpus suite")
}

var _ = BeforeSuite(func(ctx context.Context) {
	// Large CRDs take a while to be served on a busy machine.
	SetDefaultEventuallyTimeout(5 * time.Minute)
	byKubectl = testenv.StartForSpecs(ctx)
	byOperator = testenv.StartForSpecs(ctx)

	// The operator runs as main runs it, over a transport that records its requests.
	cfg := rest.CopyConfig(byOperator.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return recordingTransport{next: rt, log: operatorRequests}
	})
	recorded := *byOperator.ControlPlane
	recorded.Config = cfg
	operator := *byOperator
	operator.ControlPlane = &recorded
	operator.StartManager(func(mgr ctrl.Manager) error {
		policy, err := fetchpolicy.Parse(artifactHosts)
		if err != nil {
			return err
		}
		if err := applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: "v0.1.0", DefaultServiceAccount: "default", ArtifactPolicy: policy}); err != nil {
			return err
		}
		return parents.SetupWithManager(mgr, parents.Options{OrphanPolicy: parents.OrphanReport, Resync: time.Hour})
	})
})

// request is one API request of the operator.
type request struct {
	at     time.Time
	method string
	path   string
}

// requestLog keeps the operator's requests, for counting its writes.
type requestLog struct {
	mu       sync.Mutex
	requests []request
}

func (l *requestLog) add(r request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.requests = append(l.requests, r)
}

// writesSince returns the mutating requests made since t, as "METHOD path",
// leaving out Events and the permission questions (SelfSubjectAccessReviews
// and SelfSubjectRulesReviews are POSTs that change nothing).
func (l *requestLog) writesSince(t time.Time) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.requests {
		if r.at.Before(t) || r.method == http.MethodGet || r.method == http.MethodHead {
			continue
		}
		if strings.Contains(r.path, "/events") || strings.HasSuffix(r.path, "/selfsubjectaccessreviews") ||
			strings.HasSuffix(r.path, "/selfsubjectrulesreviews") {
			continue
		}
		out = append(out, r.method+" "+r.path)
	}
	return out
}

type recordingTransport struct {
	next http.RoundTripper
	log  *requestLog
}

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.log.add(request{at: time.Now(), method: req.Method, path: req.URL.Path})
	return t.next.RoundTrip(req)
}

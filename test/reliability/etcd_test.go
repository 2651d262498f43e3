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
	"math/rand/v2"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// etcd slowed down: every byte between kube-apiserver and etcd is held back
// by RELIABILITY_ETCD_LATENCY each way, as a slow disk or a distant member
// would make it. The same apply and prune as the fault scenarios run once at
// full speed and once slowed; both must converge with nothing lost.
var _ = Describe("A slow etcd", func() {
	It("slows the apply and the prune down, and loses or wrongly deletes nothing", func(ctx context.Context) {
		n := envInt("RELIABILITY_OBJECTS", 300)
		latency := 50 * time.Millisecond
		if d, err := time.ParseDuration(os.Getenv("RELIABILITY_ETCD_LATENCY")); err == nil && d > 0 {
			latency = d
		}
		rng := rand.New(rand.NewPCG(uint64(GinkgoRandomSeed()), 1))

		By("applying and pruning with etcd at full speed")
		fast := faultScenario(ctx, rng, n, nil)
		By(fmt.Sprintf("applying and pruning with %s added each way between kube-apiserver and etcd", latency))
		etcdLink.SetLatency(latency)
		DeferCleanup(etcdLink.SetLatency, time.Duration(0))
		// A write waits for at least one round trip to etcd: proof that the
		// latency lies on the API server's path (a floor, never flaky).
		start := time.Now()
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", GenerateName: "slow-"}})).To(Succeed())
		Expect(time.Since(start)).To(BeNumerically(">=", 2*latency), "a write did not wait for etcd's round trip")
		slow := faultScenario(ctx, rng, n, nil)
		etcdLink.SetLatency(0)

		AddReportEntry(fmt.Sprintf("etcd %s slower each way, %d objects", latency, n), fmt.Sprintf(
			"apply then prune of half: %v at full speed, %v slowed; wrong deletions %d, lost members %d, hints narrower than members %d",
			fast.phases, slow.phases, fast.wrongDeletions+slow.wrongDeletions, fast.lostMembers+slow.lostMembers,
			fast.narrowHints+slow.narrowHints))
		for _, o := range []outcome{fast, slow} {
			Expect(o.wrongDeletions).To(BeZero(), "objects that were not leaving members were deleted")
			Expect(o.lostMembers).To(BeZero(), "declared objects were missing or unlabelled once Ready")
			Expect(o.narrowHints).To(BeZero(), "the parent's hints were narrower than its members")
		}
	})
})

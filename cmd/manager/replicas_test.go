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
	"context"
	"fmt"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/claims"
	"github.com/applyset-operator/applyset-operator/internal/controlplane"
	"github.com/applyset-operator/applyset-operator/internal/replicas"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/internal/version"
)

// fastTiming keeps the spec short: failover takes LeaseDuration+Margin.
var fastTiming = replicas.Timing{LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second,
	RetryPeriod: 250 * time.Millisecond, Margin: time.Second}

// Three replicas in one process, as three Pods of one Deployment with
// --replica-sharding, stopped and started again while their sets change.
var _ = Describe("active-active replicas", func() {
	It("writes each set from the replica it names only, takes a stopped replica's sets over, and loses or deletes no member",
		func(ctx context.Context) {
			auditLog := filepath.Join(GinkgoT().TempDir(), "audit.log")
			env := testenv.StartForSpecsWith(ctx, controlplane.Options{AuditPolicy: writesPolicy, AuditLog: auditLog})
			c := env.Client
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "replicas-"}}
			Expect(c.Create(ctx, ns)).To(Succeed())
			running := map[string]func() error{}
			crashes := map[string]bool{} // whether the replica stops as a crash, leaving its Lease held
			start := func(name string, crash bool) {
				GinkgoHelper()
				stop, err := startReplica(env, ns.Name, name, crash)
				Expect(err).NotTo(HaveOccurred())
				running[name], crashes[name] = stop, crash
			}
			stop := func(name string) {
				GinkgoHelper()
				Expect(running[name]()).To(Succeed())
				delete(running, name)
			}
			DeferCleanup(func() {
				for name := range running {
					stop(name)
				}
			})
			start("a", false)
			start("b", true)
			start("c", true)

			var sets []*applyv1alpha1.ApplySet
			for i := range 6 {
				set := shardSet(ns.Name, fmt.Sprintf("set-%d", i), "", fmt.Sprintf("set-%d-m0", i))
				Expect(c.Create(ctx, set)).To(Succeed())
				sets = append(sets, set)
			}
			members := map[string]types.UID{}
			allReady := func(round int) {
				GinkgoHelper()
				for _, set := range sets {
					readyNow(ctx, c, set)
					owner, err := claims.ParseHolder(set.Annotations[replicas.OwnerAnnotation])
					Expect(err).NotTo(HaveOccurred())
					Expect(running).To(HaveKey(owner.Replica), "set %s names a stopped replica", set.Name)
					for j := 0; j <= round; j++ {
						name := fmt.Sprintf("%s-m%d", set.Name, j)
						cm := &corev1.ConfigMap{}
						Expect(c.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: name}, cm)).To(Succeed(), "member %s lost", name)
						Expect(cm.DeletionTimestamp).To(BeNil(), "member %s being deleted", name)
						if uid, seen := members[name]; seen {
							Expect(cm.UID).To(Equal(uid), "member %s was deleted and created again", name)
						}
						members[name] = cm.UID
					}
				}
			}
			owners := func() int {
				owners := map[string]bool{}
				for _, set := range sets {
					Expect(c.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
					owner, _ := claims.ParseHolder(set.Annotations[replicas.OwnerAnnotation])
					owners[owner.Replica] = true
				}
				return len(owners)
			}
			allReady(0)
			// A replica that saw the sets before the others' Leases owns them
			// until its roster changes, and then hands them over.
			By("the sets spread over the replicas")
			Eventually(owners).Should(BeNumerically(">=", 2))

			// Each round stops one replica (gracefully, or as a crash that
			// leaves its Lease to lapse), changes every set and starts the
			// replica again, to stop the other way next time.
			for round, victim := range []string{"a", "b", "c", "a"} {
				round++
				crash := crashes[victim]
				By(fmt.Sprintf("round %d: %s stops (crash: %t), every set gains a member", round, victim, crash))
				stop(victim)
				for _, set := range sets {
					edit(ctx, c, set, func(s *applyv1alpha1.ApplySet) {
						s.Spec.Resources = append(s.Spec.Resources, configMap("", fmt.Sprintf("%s-m%d", s.Name, round)))
					})
				}
				allReady(round)
				start(victim, !crash)
			}
			By("every replica back: the sets spread again")
			Eventually(owners).WithTimeout(30 * time.Second).Should(BeNumerically(">=", 2))
			for name := range running {
				stop(name)
			}

			By("the API server's audit: no set or member written by a replica its set did not name, no member deleted")
			writes, err := readWrites(auditLog, ns.Name)
			Expect(err).NotTo(HaveOccurred())
			byReplica := map[string]int{}
			for _, w := range writes {
				if w.replica != "" {
					byReplica[w.replica]++
				}
			}
			GinkgoWriter.Printf("audited writes by replica: %v\n", byReplica)
			// Sets go to replicas by a hash of their keys, in a namespace of
			// a random name: 6 sets may leave one of 3 replicas with none.
			Expect(len(byReplica)).To(BeNumerically(">=", 2), "the writes came from one replica")
			Expect(overlappingWrites(writes)).To(BeEmpty())
		})
})

// startReplica runs a manager as one replica with --replica-sharding:
// its Lease in ns, the set reconcilers, and the user agent that names it in
// the audit log. keepOnStop stops it as a crash does.
func startReplica(env *testenv.Env, ns, name string, keepOnStop bool) (func() error, error) {
	cfg := rest.CopyConfig(env.Config)
	cfg.UserAgent = replicaUserAgent(name)
	return env.RunManagerAs(cfg, nil, func(mgr ctrl.Manager) error {
		m := &replicas.Roster{Reader: mgr.GetAPIReader(), Writer: mgr.GetClient(), Namespace: ns, Replica: name,
			Timing: fastTiming, KeepOnStop: keepOnStop}
		if err := mgr.Add(m); err != nil {
			return err
		}
		return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: version.String(), SingleTenant: true, Replicas: m})
	})
}

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

package e2e

import (
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/applyset-operator/applyset-operator/internal/claims"
)

const (
	replicasNamespace = "e2e-replicas"
	ownerAnnotation   = "apply.applyset.dev/owner"
	replicaLabel      = "apply.applyset.dev/replica"
	replicaSets       = 6
)

// The spec installs the operator itself, so that it runs alone under a focus
// and in either order with the other container, and leaves the single-replica
// install of test/e2e/testdata/install behind, as the other container's specs
// find it.
var _ = Describe("Active-active replicas installed with the replicas component", Ordered, func() {
	It("spread the sets over three replicas and move the sets of a deleted and of a killed replica without touching their members", func() {
		DeferCleanup(restoreSingleReplica)

		By("installing the operator with config/components/replicas")
		run("kubectl", "apply", "--server-side", "--force-conflicts", "-k", "test/e2e/testdata/replicas")
		run("kubectl", "rollout", "status", "-n", namespace, "deployment/"+deployment, "--timeout", "3m")
		var pods []string
		Eventually(func(g Gomega) {
			pods = managerPods()
			g.Expect(pods).To(HaveLen(3))
			g.Expect(replicaLeases()).To(ConsistOf(pods), "every replica holds its Lease")
		}).Should(Succeed())

		run("kubectl", "create", "namespace", replicasNamespace)
		run("kubectl", "create", "rolebinding", "-n", replicasNamespace, "default-edit",
			"--clusterrole", "edit", "--serviceaccount", replicasNamespace+":default")

		By(fmt.Sprintf("creating %d ApplySets", replicaSets))
		var names []string
		for i := range replicaSets {
			name := fmt.Sprintf("set-%d", i)
			names = append(names, name)
			applyReplicaSet(name, "one")
		}
		var before map[string]setState
		Eventually(func(g Gomega) {
			before = setStates(g, names)
			for name, s := range before {
				g.Expect(s.ready(1)).To(BeTrue(), "%s: %+v", name, s)
				g.Expect(pods).To(ContainElement(s.Replica), "%s names a live replica", name)
			}
		}).WithTimeout(3 * time.Minute).Should(Succeed())
		victim, owned := busiestReplica(before, pods)
		GinkgoWriter.Printf("sets by replica: %v\n", owned)
		uids := memberUIDs()
		Expect(uids).To(HaveLen(2 * replicaSets))
		memory := replicaMemory(pods)
		moved := owned[victim]
		Expect(moved).NotTo(BeEmpty())

		By(fmt.Sprintf("deleting %s, which owns %v, and changing every set", victim, moved))
		deleted := time.Now()
		run("kubectl", "delete", "pod", "-n", namespace, victim, "--wait=false")
		applyReplicaSets(names, "two")
		readyAt := map[string]time.Duration{}
		Eventually(func(g Gomega) {
			states := setStates(g, names)
			live := managerPods()
			for name, s := range states {
				if s.ready(2) && s.Replica != victim && slices.Contains(live, s.Replica) {
					if _, ok := readyAt[name]; !ok {
						readyAt[name] = time.Since(deleted)
					}
				}
			}
			for name, s := range states {
				g.Expect(s.ready(2)).To(BeTrue(), "%s: %+v", name, s)
				g.Expect(s.Replica).NotTo(Equal(victim), name)
				g.Expect(live).To(ContainElement(s.Replica), "%s names a live replica", name)
			}
		}).WithTimeout(3 * time.Minute).WithPolling(250 * time.Millisecond).Should(Succeed())
		By(fmt.Sprintf("failover: the sets of the deleted replica were Ready at their new generation %s after its Pod's deletion",
			lastOf(readyAt, moved).Round(100*time.Millisecond)))
		for _, name := range names {
			GinkgoWriter.Printf("%s Ready at generation 2 after %s\n", name, readyAt[name].Round(100*time.Millisecond))
		}
		for pod, bytes := range memory {
			By(fmt.Sprintf("memory of %s with %d of %d sets: %d MiB resident", pod, len(owned[pod]), replicaSets, bytes>>20))
		}

		Expect(memberUIDs()).To(Equal(uids), "a member was deleted or recreated")
		expectMembersHold(names, "two")

		By("the replacement replica joining, and every set settling on the replica it hashes to")
		var settled map[string]setState
		Eventually(func(g Gomega) {
			pods = managerPods()
			g.Expect(pods).To(HaveLen(3))
			leases := replicaLeaseTerms(g)
			g.Expect(replicaLeases()).To(ConsistOf(pods))
			settled = setStates(g, names)
			for name, s := range settled {
				g.Expect(s.ready(2)).To(BeTrue(), "%s: %+v", name, s)
				g.Expect(s.Replica).To(Equal(claims.Target(replicasNamespace+"/"+name, pods)), name)
				g.Expect(s.holds(leases)).To(BeTrue(), "%s: %+v, Leases %v", name, s, leases)
			}
		}).Should(Succeed())
		lost, owned := busiestReplica(settled, pods)
		GinkgoWriter.Printf("sets by replica: %v\n", owned)
		taken := owned[lost]
		Expect(taken).NotTo(BeEmpty())
		container, restarts := managerContainer(Default, lost)
		termBefore := replicaLeaseTerms(Default)[lost].Term

		// SIGKILL, so that the replica cannot release its Lease: its sets move
		// only once the others fence its term, as after a crash or an OOM kill.
		By(fmt.Sprintf("killing the manager of %s, which owns %v, with SIGKILL, and changing every set", lost, taken))
		killed := time.Now()
		run("ctr", "task", "kill", "--signal", "SIGKILL", container)
		applyReplicaSets(names, "three")
		readyAt = map[string]time.Duration{}
		takenBy := map[string]string{}
		var history []string // the killed replica's Lease as the spec saw it change
		observe := func(l replicaLease) {
			if seen := fmt.Sprintf("%q/%d", l.Holder, l.Term); len(history) == 0 || !strings.HasPrefix(history[len(history)-1], seen) {
				history = append(history, fmt.Sprintf("%s at %s", seen, time.Since(killed).Round(100*time.Millisecond)))
			}
		}
		Eventually(func(g Gomega) {
			leases := replicaLeaseTerms(g)
			l := leases[lost]
			observe(l)
			states := setStates(g, names)
			for name, s := range states {
				if _, ok := readyAt[name]; !ok && s.ready(3) && s.holds(leases) {
					readyAt[name], takenBy[name] = time.Since(killed), fmt.Sprintf("%s/%d", s.Replica, s.Term)
				}
			}
			for name, s := range states {
				g.Expect(s.ready(3)).To(BeTrue(), "%s: %+v", name, s)
				g.Expect(s.holds(leases)).To(BeTrue(), "%s names a held term: %+v, Leases %v", name, s, leases)
			}
			g.Expect(l.Term).To(BeNumerically(">", termBefore), "the killed replica's term was fenced or taken again")
		}).WithTimeout(3 * time.Minute).WithPolling(250 * time.Millisecond).Should(Succeed())
		By(fmt.Sprintf("failover (lost replica): the sets of the killed replica were Ready at their new generation %s after the kill",
			lastOf(readyAt, taken).Round(100*time.Millisecond)))
		for _, name := range names {
			GinkgoWriter.Printf("%s Ready at generation 3 under %s after %s\n", name, takenBy[name], readyAt[name].Round(100*time.Millisecond))
		}

		// The restarted process runs under the same name, so it takes a new
		// term and, by the hash, its share of the sets back by handover.
		By("the killed container restarting in the same Pod and taking its sets back, and no replica refused anything by the API server")
		Eventually(func(g Gomega) {
			id, count := managerContainer(g, lost)
			g.Expect(id).NotTo(Equal(container))
			g.Expect(count).To(BeNumerically(">", restarts))
			g.Expect(managerPods()).To(ConsistOf(pods), "no Pod was replaced")
			leases := replicaLeaseTerms(g)
			observe(leases[lost])
			g.Expect(replicaLeases()).To(ConsistOf(pods))
			states := setStates(g, names)
			for name, s := range states {
				g.Expect(s.ready(3)).To(BeTrue(), "%s: %+v", name, s)
				g.Expect(s.Replica).To(Equal(claims.Target(replicasNamespace+"/"+name, pods)), name)
				g.Expect(s.holds(leases)).To(BeTrue(), "%s: %+v, Leases %v", name, s, leases)
			}
			_, owned = busiestReplica(states, pods)
			restarts = count
		}).Should(Succeed())
		By(fmt.Sprintf("restartCount of the manager container of %s: %d; its Lease (holder/term), term %d before the kill: %s",
			lost, restarts, termBefore, strings.Join(history, ", ")))
		GinkgoWriter.Printf("sets by replica: %v\n", owned)
		Expect(memberUIDs()).To(Equal(uids), "a member was deleted or recreated")
		expectMembersHold(names, "three")
		for _, pod := range managerPods() {
			Expect(logsOf(pod)).NotTo(ContainSubstring("forbidden"), pod)
		}
	})
})

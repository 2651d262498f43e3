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
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
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
	It("spread the sets over three replicas and move a deleted replica's sets without touching their members", func() {
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
		owned := map[string][]string{}
		for name, s := range before {
			owned[s.Replica] = append(owned[s.Replica], name)
		}
		GinkgoWriter.Printf("sets by replica: %v\n", owned)
		uids := memberUIDs()
		Expect(uids).To(HaveLen(2 * replicaSets))
		memory := replicaMemory(pods)

		// The replica owning the most sets, so that at least one moves.
		victim := pods[0]
		for _, pod := range pods {
			if len(owned[pod]) > len(owned[victim]) {
				victim = pod
			}
		}
		moved := owned[victim]
		Expect(moved).NotTo(BeEmpty())

		By(fmt.Sprintf("deleting %s, which owns %v, and changing every set", victim, moved))
		deleted := time.Now()
		run("kubectl", "delete", "pod", "-n", namespace, victim, "--wait=false")
		for _, name := range names {
			applyReplicaSet(name, "two")
		}
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
		var failover time.Duration
		for _, name := range moved {
			failover = max(failover, readyAt[name])
		}
		By(fmt.Sprintf("failover: the sets of the deleted replica were Ready at their new generation %s after its Pod's deletion",
			failover.Round(100*time.Millisecond)))
		for _, name := range names {
			GinkgoWriter.Printf("%s Ready at generation 2 after %s\n", name, readyAt[name].Round(100*time.Millisecond))
		}
		for pod, bytes := range memory {
			By(fmt.Sprintf("memory of %s with %d of %d sets: %d MiB resident", pod, len(owned[pod]), replicaSets, bytes>>20))
		}

		Expect(memberUIDs()).To(Equal(uids), "a member was deleted or recreated")
		for _, name := range names {
			Expect(run("kubectl", "get", "configmap", "-n", replicasNamespace, name+"-a",
				"-o", "jsonpath={.data.value}")).To(Equal("two"), name)
		}

		By("the replacement replica joining, and no replica refused anything by the API server")
		Eventually(func(g Gomega) {
			pods := managerPods()
			g.Expect(pods).To(HaveLen(3))
			g.Expect(replicaLeases()).To(ConsistOf(pods))
		}).Should(Succeed())
		for _, pod := range managerPods() {
			Expect(logsOf(pod)).NotTo(ContainSubstring("forbidden"), pod)
		}
	})
})

// setState is what the spec reads of a set: its generations, readiness and
// the replica its owner annotation names.
type setState struct {
	Generation, Observed int64
	Ready                bool
	Replica              string
	Term                 int64
}

func (s setState) ready(generation int64) bool {
	return s.Generation == generation && s.Observed == generation && s.Ready && s.Replica != ""
}

var ownerValue = regexp.MustCompile(`^(.+)/([0-9]+)$`)

// setStates reads the sets names of e2e-replicas.
func setStates(g Gomega, names []string) map[string]setState {
	out, _, err := kubectl("get", "applysets", "-n", replicasNamespace, "-o", "json")
	g.Expect(err).NotTo(HaveOccurred())
	var list struct {
		Items []struct {
			Metadata struct {
				Name        string
				Generation  int64
				Annotations map[string]string
			}
			Status struct {
				ObservedGeneration int64
				Conditions         []struct{ Type, Status string }
			}
		}
	}
	g.Expect(json.Unmarshal([]byte(out), &list)).To(Succeed())
	states := map[string]setState{}
	for _, item := range list.Items {
		s := setState{Generation: item.Metadata.Generation, Observed: item.Status.ObservedGeneration}
		for _, c := range item.Status.Conditions {
			if c.Type == "Ready" {
				s.Ready = c.Status == "True"
			}
		}
		if m := ownerValue.FindStringSubmatch(item.Metadata.Annotations[ownerAnnotation]); m != nil {
			s.Replica = m[1]
			s.Term, _ = strconv.ParseInt(m[2], 10, 64)
		}
		states[item.Metadata.Name] = s
	}
	g.Expect(states).To(HaveLen(len(names)))
	return states
}

// applyReplicaSet applies the set name of e2e-replicas with two ConfigMaps,
// name-a and name-b, whose data holds value.
func applyReplicaSet(name, value string) {
	GinkgoHelper()
	var resources []map[string]any
	for _, member := range []string{name + "-a", name + "-b"} {
		resources = append(resources, map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": member}, "data": map[string]any{"value": value},
		})
	}
	set, err := json.Marshal(map[string]any{
		"apiVersion": "apply.applyset.dev/v1alpha1", "kind": "ApplySet",
		"metadata": map[string]any{"name": name, "namespace": replicasNamespace},
		"spec":     map[string]any{"prune": true, "resources": resources},
	})
	Expect(err).NotTo(HaveOccurred())
	_, _, err = kubectlIn(string(set), "apply", "--server-side", "-f", "-")
	Expect(err).NotTo(HaveOccurred())
}

// memberUIDs are the name=uid of the sets' ConfigMaps, sorted.
func memberUIDs() []string {
	GinkgoHelper()
	out := run("kubectl", "get", "configmaps", "-n", replicasNamespace, "-l", "applyset.kubernetes.io/part-of",
		"-o", `jsonpath={range .items[*]}{.metadata.name}={.metadata.uid}{"\n"}{end}`)
	uids := strings.Fields(out)
	sort.Strings(uids)
	return uids
}

// replicaLeases are the replicas whose Lease names a holder.
func replicaLeases() []string {
	GinkgoHelper()
	out := run("kubectl", "get", "leases", "-n", namespace, "-l", replicaLabel,
		"-o", `jsonpath={range .items[*]}{.spec.holderIdentity}{"\n"}{end}`)
	return strings.Fields(out)
}

// replicaMemory reads process_resident_memory_bytes of each Pod from its
// metrics endpoint, as a scraper with the metrics-reader role; a Pod it cannot
// read is left out.
func replicaMemory(pods []string) map[string]int64 {
	GinkgoHelper()
	const account = "memory-reader"
	run("kubectl", "create", "serviceaccount", "-n", replicasNamespace, account)
	run("kubectl", "create", "clusterrolebinding", "e2e-replicas-"+account,
		"--clusterrole", "applyset-operator-metrics-reader", "--serviceaccount", replicasNamespace+":"+account)
	token := strings.TrimSpace(run("kubectl", "create", "token", "-n", replicasNamespace, account))
	memory := map[string]int64{}
	for _, pod := range pods {
		ip := strings.TrimSpace(run("kubectl", "get", "pod", "-n", namespace, pod, "-o", "jsonpath={.status.podIP}"))
		var code int
		var body string
		var err error
		for range 10 { // the binding reaches the authorizer's cache in a moment
			if code, body, err = scrape("https://"+ip+":8443/metrics", token); err == nil && code == 200 {
				break
			}
			time.Sleep(time.Second)
		}
		if err != nil || code != 200 {
			GinkgoWriter.Printf("metrics of %s: %d %v\n", pod, code, err)
			continue
		}
		for _, line := range strings.Split(body, "\n") {
			if value, ok := strings.CutPrefix(line, "process_resident_memory_bytes "); ok {
				f, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
				if err == nil {
					memory[pod] = int64(f)
				}
			}
		}
	}
	return memory
}

// restoreSingleReplica removes the spec's namespace while the replicas run,
// then applies the e2e install again, one replica without
// --replica-sharding, and removes the replicas' Leases.
func restoreSingleReplica() {
	GinkgoHelper()
	By("restoring the single-replica install")
	_, _, _ = kubectl("delete", "clusterrolebinding", "e2e-replicas-memory-reader", "--ignore-not-found")
	run("kubectl", "delete", "namespace", replicasNamespace, "--ignore-not-found", "--timeout", "3m")
	run("kubectl", "apply", "--server-side", "--force-conflicts", "-k", "test/e2e/testdata/install")
	run("kubectl", "rollout", "status", "-n", namespace, "deployment/"+deployment, "--timeout", "3m")
	Eventually(managerPods).Should(HaveLen(1))
	Eventually(func(g Gomega) {
		out, _, err := kubectl("get", "pods", "-n", namespace, "-l", managerSel, "-o", "name")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(strings.Fields(out)).To(HaveLen(1), "the replicas stopped")
	}).Should(Succeed())
	run("kubectl", "delete", "leases", "-n", namespace, "-l", replicaLabel, "--ignore-not-found")
}

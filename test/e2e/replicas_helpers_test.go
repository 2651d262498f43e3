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
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

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

// applyReplicaSets applies every set of names with value in its members.
func applyReplicaSets(names []string, value string) {
	GinkgoHelper()
	for _, name := range names {
		applyReplicaSet(name, value)
	}
}

// expectMembersHold checks that each set's first member holds value.
func expectMembersHold(names []string, value string) {
	GinkgoHelper()
	for _, name := range names {
		Expect(run("kubectl", "get", "configmap", "-n", replicasNamespace, name+"-a",
			"-o", "jsonpath={.data.value}")).To(Equal(value), name)
	}
}

// busiestReplica groups the sets by the replica they name and returns the
// replica of pods owning the most, so that at least one set moves when it
// goes.
func busiestReplica(states map[string]setState, pods []string) (string, map[string][]string) {
	owned := map[string][]string{}
	for name, s := range states {
		owned[s.Replica] = append(owned[s.Replica], name)
	}
	busiest := pods[0]
	for _, pod := range pods {
		if len(owned[pod]) > len(owned[busiest]) {
			busiest = pod
		}
	}
	return busiest, owned
}

// lastOf is the latest time in readyAt of the sets names.
func lastOf(readyAt map[string]time.Duration, names []string) time.Duration {
	var last time.Duration
	for _, name := range names {
		last = max(last, readyAt[name])
	}
	return last
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

// replicaLease is what the spec reads of a replica's Lease: its holder and
// its term (leaseTransitions).
type replicaLease struct {
	Holder string
	Term   int64
}

// replicaLeaseTerms reads the replicas' Leases by the replica they belong to.
func replicaLeaseTerms(g Gomega) map[string]replicaLease {
	out, _, err := kubectl("get", "leases", "-n", namespace, "-l", replicaLabel, "-o", "json")
	g.Expect(err).NotTo(HaveOccurred())
	var list struct {
		Items []struct {
			Metadata struct{ Labels map[string]string }
			Spec     struct {
				HolderIdentity   *string
				LeaseTransitions *int64
			}
		}
	}
	g.Expect(json.Unmarshal([]byte(out), &list)).To(Succeed())
	leases := map[string]replicaLease{}
	for _, item := range list.Items {
		var l replicaLease
		if item.Spec.HolderIdentity != nil {
			l.Holder = *item.Spec.HolderIdentity
		}
		if item.Spec.LeaseTransitions != nil {
			l.Term = *item.Spec.LeaseTransitions
		}
		leases[item.Metadata.Labels[replicaLabel]] = l
	}
	return leases
}

// holds reports whether the term s names is the current one of a replica
// that holds its Lease: only such a replica acts on the set.
func (s setState) holds(leases map[string]replicaLease) bool {
	l, ok := leases[s.Replica]
	return ok && l.Holder == s.Replica && l.Term == s.Term
}

// managerContainer reads the ID in the node's containerd and the restart
// count of pod's manager container.
func managerContainer(g Gomega, pod string) (id string, restarts int) {
	status := `.status.containerStatuses[?(@.name=="manager")]`
	out, _, err := kubectl("get", "pod", "-n", namespace, pod,
		"-o", "jsonpath={"+status+".containerID} {"+status+".restartCount}")
	g.Expect(err).NotTo(HaveOccurred())
	fields := strings.Fields(out)
	g.Expect(fields).To(HaveLen(2), out)
	id, ok := strings.CutPrefix(fields[0], "containerd://")
	g.Expect(ok).To(BeTrue(), "a container of containerd: %s", fields[0])
	restarts, err = strconv.Atoi(fields[1])
	g.Expect(err).NotTo(HaveOccurred())
	return id, restarts
}

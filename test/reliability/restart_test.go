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
	"iter"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// memberKinds are the kinds the scenario's sets declare, in turn.
var memberKinds = []schema.GroupVersionKind{
	corev1.SchemeGroupVersion.WithKind("ConfigMap"),
	rbacv1.SchemeGroupVersion.WithKind("Role"),
	corev1.SchemeGroupVersion.WithKind("ServiceAccount"),
}

// outcome is what one run of a fault scenario counts.
type outcome struct {
	wrongDeletions, lostMembers, narrowHints int
	// falseAlarms are Warning Events about the set that pass on a write's
	// Forbidden answer although the set's identity kept every permission. (A
	// permission check that refuses is surfaced at once, by design: it is
	// how a revocation is seen.)
	falseAlarms int
	// converge is the time from each strike until the set was Ready again;
	// phases the time from each change of the set (create, then the update
	// that prunes) until it was Ready.
	converge, phases []time.Duration
}

// The operator is stopped at a random point (seeded: the seed is the suite's
// random seed, printed by ginkgo) during the apply of a set and during its
// prune, and a new one is started. RELIABILITY_OBJECTS and RELIABILITY_RUNS
// scale it (make reliability).
var _ = Describe("The operator stopped mid-apply and mid-prune", func() {
	It("converges with no wrong deletion, no lost member, and hints never narrower than the members", func(ctx context.Context) {
		runFaultScenarios(ctx, "operator stopped mid-apply and mid-prune", func(op *operator) { op.restart() })
	})
})

// The API server is stopped at a random point of an apply and of a prune and
// started again on the same etcd while the operator runs on: its watches
// break, its requests fail for the seconds the API server is down, and it
// must pick up where it was.
var _ = Describe("The API server restarted mid-apply and mid-prune", func() {
	It("converges with no wrong deletion, no lost member, and hints never narrower than the members", func(ctx context.Context) {
		runFaultScenarios(ctx, "API server restarted mid-apply and mid-prune", func(*operator) {
			start := time.Now()
			Expect(env.StopAPIServer()).To(Succeed())
			stopped := time.Now()
			Expect(env.StartAPIServer()).To(Succeed())
			GinkgoWriter.Printf("API server stopped in %s, down for %s\n", stopped.Sub(start), time.Since(stopped))
		})
	})
})

// runFaultScenarios runs faultScenario RELIABILITY_RUNS times with strike
// and reports the counts, which must all be zero.
func runFaultScenarios(ctx context.Context, name string, strike func(*operator)) {
	GinkgoHelper()
	n, runs := envInt("RELIABILITY_OBJECTS", 300), envInt("RELIABILITY_RUNS", 1)
	rng := rand.New(rand.NewPCG(uint64(GinkgoRandomSeed()), 0))
	var total outcome
	for run := range runs {
		o := faultScenario(ctx, rng, n, strike)
		GinkgoWriter.Printf("run %d (seed %d): %+v\n", run+1, GinkgoRandomSeed(), o)
		total.wrongDeletions += o.wrongDeletions
		total.lostMembers += o.lostMembers
		total.narrowHints += o.narrowHints
		total.falseAlarms += o.falseAlarms
		total.converge = append(total.converge, o.converge...)
	}
	AddReportEntry(fmt.Sprintf("%s, %d objects", name, n), fmt.Sprintf(
		"runs %d, wrong deletions %d, lost members %d, hints narrower than members %d, permission warnings %d, times to converge after the fault %v",
		runs, total.wrongDeletions, total.lostMembers, total.narrowHints, total.falseAlarms, total.converge))
	Expect(total.wrongDeletions).To(BeZero(), "objects that were not leaving members were deleted")
	Expect(total.lostMembers).To(BeZero(), "declared objects were missing or unlabelled once Ready")
	Expect(total.narrowHints).To(BeZero(), "the parent's hints were narrower than its members")
	Expect(total.falseAlarms).To(BeZero(), "Warnings told of a permission problem although every permission stayed granted")
}

// operator is the operator of a fault scenario.
type operator struct{ stop func() error }

// restart stops the operator and starts a new one, as a crash and a new Pod would.
func (o *operator) restart() {
	GinkgoHelper()
	Expect(o.stop()).To(Succeed())
	o.stop = runOperator()
}

// faultScenario applies n objects and then prunes half of them, striking at
// a random point of each; strike returns once the fault's cause is gone, and
// the time from then until the set is Ready again is what converge records.
// With no strike it runs the same steps undisturbed.
func faultScenario(ctx context.Context, rng *rand.Rand, n int, strike func(*operator)) outcome {
	var o outcome
	home, other := tenantNamespace(ctx), tenantNamespace(ctx)
	grantIn(ctx, other, home)
	bystanders := createBystanders(ctx, home, other)

	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: home, Name: "big"}}
	set.Spec.AdditionalNamespaces = []string{other}
	set.Spec.Resources = declare(n, other)
	id := applyset.ParentKey{GroupKind: applyv1alpha1.GroupVersion.WithKind("ApplySet").GroupKind(), Namespace: home, Name: set.Name}.ID()
	s := startSampler(ctx, client.ObjectKeyFromObject(set), id, home, other)
	defer s.stop()

	By("striking mid-apply")
	op := &operator{stop: runOperator()}
	defer func() { Expect(op.stop()).To(Succeed()) }()
	Expect(k8sClient.Create(ctx, set)).To(Succeed())
	changed := time.Now()
	applied := 1 + rng.IntN(n-1)
	o.strikeWhen(ctx, op, strike, set, func() bool { return len(memberRefs(ctx, id, home, other)) >= applied })
	o.phases = append(o.phases, time.Since(changed).Round(10*time.Millisecond))
	o.lostMembers += lost(ctx, id, n, home, other)
	o.wrongDeletions += gone(ctx, bystanders)

	By("striking mid-prune")
	kept := uidsOf(ctx, declaredRefs(n/2, home, other))
	s.pruning()
	halved := declare(n/2, other)
	// The operator may still write the set's status or hints after a fault.
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set); err != nil {
			return err
		}
		set.Spec.Resources = halved
		return k8sClient.Update(ctx, set)
	})).To(Succeed())
	changed = time.Now()
	left := n - 1 - rng.IntN(n-n/2-1) // members left at the strike
	o.strikeWhen(ctx, op, strike, set, func() bool { return len(memberRefs(ctx, id, home, other)) <= left })
	o.phases = append(o.phases, time.Since(changed).Round(10*time.Millisecond))
	o.lostMembers += lost(ctx, id, n/2, home, other)
	o.wrongDeletions += gone(ctx, bystanders) + gone(ctx, kept)
	Expect(memberRefs(ctx, id, home, other)).To(HaveLen(n/2), "members that left the set were not pruned")
	o.narrowHints = s.stop()
	o.falseAlarms = permissionWarnings(ctx, set)
	return o
}

// permissionWarnings counts the Warning Events about set that pass on a
// write's Forbidden answer.
func permissionWarnings(ctx context.Context, set *applyv1alpha1.ApplySet) int {
	GinkgoHelper()
	list := &eventsv1.EventList{}
	Expect(k8sClient.List(ctx, list, client.InNamespace(set.Namespace))).To(Succeed())
	n := 0
	for _, e := range list.Items {
		if e.Regarding.Name == set.Name && e.Type == corev1.EventTypeWarning && strings.Contains(e.Note, "is forbidden") {
			GinkgoWriter.Printf("permission warning: %s %s\n", e.Reason, e.Note)
			n++
		}
	}
	return n
}

// declare returns n objects over memberKinds, the odd ones in namespace other.
func declare(n int, other string) []applyv1alpha1.Resource {
	GinkgoHelper()
	out := make([]applyv1alpha1.Resource, 0, n)
	for i := range n {
		gvk := memberKinds[i%len(memberKinds)]
		md := map[string]any{"name": fmt.Sprintf("m%d", i)}
		if i%2 == 1 {
			md["namespace"] = other
		}
		r, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind, "metadata": md})
		Expect(err).NotTo(HaveOccurred())
		out = append(out, r)
	}
	return out
}

// objectRef names an object of one of memberKinds.
type objectRef struct {
	kind            schema.GroupVersionKind
	namespace, name string
}

func declaredRefs(n int, home, other string) []objectRef {
	out := make([]objectRef, 0, n)
	for i := range n {
		ns := home
		if i%2 == 1 {
			ns = other
		}
		out = append(out, objectRef{kind: memberKinds[i%len(memberKinds)], namespace: ns, name: fmt.Sprintf("m%d", i)})
	}
	return out
}

// memberRefs lists the objects of memberKinds in the namespaces that carry id.
func memberRefs(ctx context.Context, id string, namespaces ...string) []objectRef {
	GinkgoHelper()
	out, err := listMembers(ctx, id, namespaces...)
	Expect(err).NotTo(HaveOccurred())
	return out
}

func listMembers(ctx context.Context, id string, namespaces ...string) ([]objectRef, error) {
	objs, err := listObjects(ctx, client.MatchingLabels{applyset.PartOfLabel: id}, namespaces...)
	out := make([]objectRef, 0, len(objs))
	for ref := range objs {
		out = append(out, ref)
	}
	return out, err
}

// listObjects reads the objects of memberKinds in namespaces, metadata only:
// one LIST per kind and namespace, so that counting stays cheap when the API
// server is slow.
func listObjects(ctx context.Context, selector client.MatchingLabels, namespaces ...string) (map[objectRef]metav1.PartialObjectMetadata, error) {
	out := map[objectRef]metav1.PartialObjectMetadata{}
	for _, gvk := range memberKinds {
		for _, ns := range namespaces {
			list := &metav1.PartialObjectMetadataList{}
			list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			if err := k8sClient.List(ctx, list, client.InNamespace(ns), selector); err != nil {
				return nil, err
			}
			for _, item := range list.Items {
				out[objectRef{kind: gvk, namespace: item.Namespace, name: item.Name}] = item
			}
		}
	}
	return out, nil
}

// objectsOf reads the objects of memberKinds in the namespaces of refs.
func objectsOf(ctx context.Context, refs iter.Seq[objectRef]) map[objectRef]metav1.PartialObjectMetadata {
	GinkgoHelper()
	namespaces := sets.New[string]()
	for ref := range refs {
		namespaces.Insert(ref.namespace)
	}
	objs, err := listObjects(ctx, nil, sets.List(namespaces)...)
	Expect(err).NotTo(HaveOccurred())
	return objs
}

// lost counts the first n declared objects that are missing or do not carry id.
func lost(ctx context.Context, id string, n int, home, other string) int {
	refs := declaredRefs(n, home, other)
	objs := objectsOf(ctx, slices.Values(refs))
	count := 0
	for _, ref := range refs {
		if obj, ok := objs[ref]; !ok || obj.Labels[applyset.PartOfLabel] != id {
			count++
		}
	}
	return count
}

// uidsOf records the UIDs of refs.
func uidsOf(ctx context.Context, refs []objectRef) map[objectRef]types.UID {
	GinkgoHelper()
	objs := objectsOf(ctx, slices.Values(refs))
	out := map[objectRef]types.UID{}
	for _, ref := range refs {
		obj, ok := objs[ref]
		Expect(ok).To(BeTrue(), "%v does not exist", ref)
		out[ref] = obj.UID
	}
	return out
}

// gone counts the objects that were deleted (or replaced) since their UIDs were recorded.
func gone(ctx context.Context, uids map[objectRef]types.UID) int {
	objs := objectsOf(ctx, maps.Keys(uids))
	count := 0
	for ref, uid := range uids {
		if obj, ok := objs[ref]; !ok || obj.UID != uid {
			count++
		}
	}
	return count
}

// createBystanders creates objects a prune must never touch: unlabelled
// ones, and one labelled as a member of another set, in both namespaces.
func createBystanders(ctx context.Context, namespaces ...string) map[objectRef]types.UID {
	GinkgoHelper()
	var refs []objectRef
	for _, ns := range namespaces {
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bystander"}})).To(Succeed())
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "of-another-set",
			Labels: map[string]string{applyset.PartOfLabel: "applyset-another-set-v1"}}})).To(Succeed())
		refs = append(refs, objectRef{kind: memberKinds[0], namespace: ns, name: "bystander"},
			objectRef{kind: memberKinds[0], namespace: ns, name: "of-another-set"})
	}
	return uidsOf(ctx, refs)
}

func runOperator() func() error {
	GinkgoHelper()
	stop, err := env.RunManager(setupOperator)
	Expect(err).NotTo(HaveOccurred())
	return stop
}

// strikeWhen strikes once reached is true, waits until the set is Ready and
// records how long that took after the strike. With no strike it only waits.
func (o *outcome) strikeWhen(ctx context.Context, op *operator, strike func(*operator), set *applyv1alpha1.ApplySet, reached func() bool) {
	GinkgoHelper()
	if strike != nil {
		Eventually(reached).WithContext(ctx).WithPolling(20 * time.Millisecond).Should(BeTrue())
		strike(op)
	}
	start := time.Now()
	Eventually(ready(ctx, set)).WithTimeout(5 * time.Minute).Should(BeTrue())
	if strike != nil {
		o.converge = append(o.converge, time.Since(start).Round(10*time.Millisecond))
	}
}

// grantIn lets the default ServiceAccount of saNamespace do anything in ns.
func grantIn(ctx context.Context, ns, saNamespace string) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "from-" + saNamespace},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "everything"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: saNamespace, Name: "default"}}})).To(Succeed())
}

func envInt(name string, fallback int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return fallback
}

// sampler reads the parent and its members over and over, and counts the
// samples in which a member lay outside the parent's hints.
type sampler struct {
	mu         sync.Mutex
	prune      bool
	violations int
	done       chan struct{}
	wg         sync.WaitGroup
}

func startSampler(ctx context.Context, parentKey client.ObjectKey, id, home, other string) *sampler {
	s := &sampler{done: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer GinkgoRecover()
		defer s.wg.Done()
		for {
			select {
			case <-s.done:
				return
			case <-time.After(50 * time.Millisecond):
			}
			s.sample(ctx, parentKey, id, home, other)
		}
	}()
	return s
}

// pruning switches the order of the reads: while members are only created,
// reading them before the parent cannot see a member the hint does not yet
// cover; while they are only deleted, reading the parent first cannot.
func (s *sampler) pruning() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune = true
}

func (s *sampler) sample(ctx context.Context, parentKey client.ObjectKey, id, home, other string) {
	s.mu.Lock()
	prune := s.prune
	s.mu.Unlock()
	parent := &applyv1alpha1.ApplySet{}
	readParent := func() bool { return k8sClient.Get(ctx, parentKey, parent) == nil }
	// A sample fails while the API server is down; the next one is taken.
	if prune && !readParent() {
		return
	}
	members, err := listMembers(ctx, id, home, other)
	if err != nil || (!prune && !readParent()) {
		return
	}
	kinds, err := applyset.ParseGroupKinds(parent.Annotations[applyset.GroupKindsAnnotation])
	if err != nil {
		kinds = nil
	}
	namespaces, err := applyset.ParseNamespaces(parent.Annotations[applyset.AdditionalNamespacesAnnotation])
	if err != nil {
		namespaces = nil
	}
	for _, m := range members {
		if !kinds.Has(m.kind.GroupKind()) || (m.namespace != home && !namespaces.Has(m.namespace)) {
			GinkgoWriter.Printf("hint narrower than member %v: kinds %v, namespaces %v\n", m, kinds, namespaces)
			s.mu.Lock()
			s.violations++
			s.mu.Unlock()
			return
		}
	}
}

// stop ends the sampling and returns the samples with a member outside the hints.
func (s *sampler) stop() int {
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	s.wg.Wait()
	return s.violations
}

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
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/controllers/parents"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/internal/version"
)

const shardKey = "sharding.fluxcd.io/key"

// Two shards in one process, configured by their flags as two Deployments
// are: the first runs the parent reconciler beside its sets.
var _ = Describe("sharding by label", func() {
	It("reconciles each set in one shard, moves a relabelled set without deleting a member, and releases a deleted set's members in its shard",
		func(ctx context.Context) {
			env := testenv.StartForSpecs(ctx)
			c := env.Client
			first := startShard(env, "--watch-label-selector=!"+shardKey, "--disable-webhooks")
			second := startShard(env, "--watch-label-selector="+shardKey+"=shard1", "--controllers=applysets", "--disable-webhooks")

			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "shards-"}}
			Expect(c.Create(ctx, ns)).To(Succeed())
			unlabelled := shardSet(ns.Name, "unlabelled", "", "unlabelled-a")
			labelled := shardSet(ns.Name, "labelled", "shard1", "labelled-a")
			moving := shardSet(ns.Name, "moving", "", "moving-a")
			cluster := &applyv1alpha1.ClusterApplySet{ObjectMeta: metav1.ObjectMeta{Name: ns.Name + "-cluster",
				Labels: map[string]string{shardKey: "shard1"}}}
			cluster.Spec.Resources = []applyv1alpha1.Resource{configMap(ns.Name, "cluster-a")}
			cluster.Spec.AdditionalNamespaces = []string{ns.Name}
			for _, set := range []client.Object{unlabelled, labelled, moving, cluster} {
				Expect(c.Create(ctx, set)).To(Succeed())
			}
			for _, set := range []client.Object{unlabelled, labelled, moving, cluster} {
				readyNow(ctx, c, set)
			}

			By("each set written by its own shard only")
			Expect(first.wrote()).To(ConsistOf("unlabelled", "moving"))
			Expect(second.wrote()).To(ConsistOf("labelled", cluster.Name))

			By("a set labelled into the second shard: the first forgets it, the second takes it")
			before := &corev1.ConfigMap{}
			Expect(c.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: "moving-a"}, before)).To(Succeed())
			edit(ctx, c, moving, func(s *applyv1alpha1.ApplySet) { metav1.SetMetaDataLabel(&s.ObjectMeta, shardKey, "shard1") })
			Eventually(cached(ctx, first, moving)).Should(BeFalse())
			Eventually(cached(ctx, second, moving)).Should(BeTrue())
			first.reset()
			second.reset()
			edit(ctx, c, moving, func(s *applyv1alpha1.ApplySet) {
				s.Spec.Resources = append(s.Spec.Resources, configMap("", "moving-b"))
			})
			readyNow(ctx, c, moving)
			Expect(c.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: "moving-b"}, &corev1.ConfigMap{})).To(Succeed())
			after := &corev1.ConfigMap{}
			Expect(c.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: "moving-a"}, after)).To(Succeed())
			Expect(after.UID).To(Equal(before.UID), "the member was deleted and created again")
			Expect(after.DeletionTimestamp).To(BeNil())
			Expect(second.wrote()).To(ConsistOf("moving"))
			Expect(first.wrote()).To(BeEmpty())

			By("a labelled set deleted: its shard releases its members and lets it go")
			Expect(c.Delete(ctx, labelled)).To(Succeed())
			Eventually(func() bool {
				return apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(labelled), &applyv1alpha1.ApplySet{}))
			}).Should(BeTrue())
			Expect(apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: "labelled-a"}, &corev1.ConfigMap{}))).
				To(BeTrue(), "the deleted set's member is still there")
			Expect(second.wrote()).To(ConsistOf("moving", "labelled"))
			Expect(first.wrote()).To(BeEmpty())

			By("no member of the other sets deleted")
			for _, name := range []string{"unlabelled-a", "moving-a", "moving-b"} {
				Expect(c.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: name}, &corev1.ConfigMap{})).To(Succeed())
			}
		})
})

// shard is a manager started with a shard's flags, and the sets it wrote.
type shard struct {
	mgr ctrl.Manager

	mu     sync.Mutex
	writes map[string]bool // names of the sets the manager's client wrote to
}

// startShard starts a manager as cmd/manager would with args: its cache and
// lease from the sharding flags, the set reconcilers (single-tenant, so that
// no ServiceAccount is needed) and, where --controllers has them, the parent
// and orphan reconcilers.
func startShard(env *testenv.Env, args ...string) *shard {
	GinkgoHelper()
	o, err := parseFlags(args...)
	Expect(err).NotTo(HaveOccurred())
	s := &shard{writes: map[string]bool{}}
	env.StartManagerWith(func(opts *ctrl.Options) {
		o.shard.managerOptions(opts)
		opts.NewClient = s.newClient
	}, func(mgr ctrl.Manager) error {
		s.mgr = mgr
		if o.shard.runs(controllerParents) {
			if err := parents.SetupWithManager(mgr, parents.Options{OrphanPolicy: parents.OrphanReport, Resync: time.Hour}); err != nil {
				return err
			}
		}
		return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: version.String(), SingleTenant: true})
	})
	return s
}

// newClient is the manager's client, recording each write to a set: its
// finalizer and its status.
func (s *shard) newClient(cfg *rest.Config, opts client.Options) (client.Client, error) {
	c, err := client.New(cfg, opts)
	if err != nil {
		return nil, err
	}
	return interceptor.NewClient(withWatch{c}, interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			s.record(obj)
			return c.Patch(ctx, obj, patch, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			s.record(obj)
			return c.Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			s.record(obj)
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			s.record(obj)
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
	}), nil
}

// withWatch lets the interceptor wrap the manager's client, whose reads
// come from the cache; nothing here watches through it.
type withWatch struct{ client.Client }

func (withWatch) Watch(context.Context, client.ObjectList, ...client.ListOption) (watch.Interface, error) {
	return nil, errors.New("not watched through the manager's client")
}

// record notes a write of a set, made with the set itself or, as the
// reconciler writes its hints and status, with its metadata.
func (s *shard) record(obj client.Object) {
	_, isSet := obj.(applyv1alpha1.Set)
	if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
		isSet = m.GroupVersionKind().Group == applyv1alpha1.GroupVersion.Group
	}
	if !isSet {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes[obj.GetName()] = true
}

func (s *shard) wrote() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.writes))
}

func (s *shard) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.writes)
}

// cached says, for Eventually, whether the shard's cache holds the set.
func cached(ctx context.Context, s *shard, set client.Object) func() (bool, error) {
	return func() (bool, error) {
		err := s.mgr.GetCache().Get(ctx, client.ObjectKeyFromObject(set), &applyv1alpha1.ApplySet{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	}
}

// shardSet is an ApplySet of one ConfigMap, labelled for shard unless "".
func shardSet(ns, name, shard, member string) *applyv1alpha1.ApplySet {
	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if shard != "" {
		set.Labels = map[string]string{shardKey: shard}
	}
	set.Spec.Resources = []applyv1alpha1.Resource{configMap("", member)}
	return set
}

func configMap(ns, name string) applyv1alpha1.Resource {
	GinkgoHelper()
	meta := map[string]any{"name": name}
	if ns != "" {
		meta["namespace"] = ns
	}
	r, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta})
	Expect(err).NotTo(HaveOccurred())
	return r
}

// readyNow waits until the set is Ready at its current generation.
func readyNow(ctx context.Context, c client.Client, set client.Object) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		ready := apimeta.FindStatusCondition(set.(applyv1alpha1.Set).GetSetStatus().Conditions, applyv1alpha1.ConditionReady)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), ready.Message)
		g.Expect(ready.ObservedGeneration).To(Equal(set.GetGeneration()))
	}).Should(Succeed(), "set %s never became Ready", set.GetName())
}

// edit changes a set as a person would, on its latest version.
func edit(ctx context.Context, c client.Client, set *applyv1alpha1.ApplySet, change func(*applyv1alpha1.ApplySet)) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, types.NamespacedName{Namespace: set.Namespace, Name: set.Name}, set); err != nil {
			return err
		}
		change(set)
		return c.Update(ctx, set)
	})).To(Succeed())
}

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
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/applysets"
	"github.com/applyset-operator/applyset-operator/internal/replicas"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
	"github.com/applyset-operator/applyset-operator/pkg/ownership"
)

// fastTiming keeps the spec short: failover takes LeaseDuration+Margin.
var fastTiming = replicas.Timing{LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second,
	RetryPeriod: 250 * time.Millisecond, Margin: time.Second}

// Three replicas in one process, as three Pods of one Deployment with
// --replica-sharding, stopped and started again while their sets change.
var _ = Describe("active-active replicas", func() {
	It("writes each set from the replica it names only, takes a stopped replica's sets over, and loses or deletes no member",
		func(ctx context.Context) {
			env := testenv.StartForSpecs(ctx)
			c := env.Client
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "replicas-"}}
			Expect(c.Create(ctx, ns)).To(Succeed())
			w := &writeLog{}
			running := map[string]func() error{}
			crashes := map[string]bool{} // whether the replica stops as a crash, leaving its Lease held
			start := func(name string, crash bool) {
				GinkgoHelper()
				stop, err := startReplica(env, ns.Name, name, crash, w)
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
					owner, err := ownership.ParseOwner(set.Annotations[replicas.OwnerAnnotation])
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
			allReady(0)
			By("the sets spread over the replicas")
			Expect(len(w.writers())).To(BeNumerically(">=", 2))

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
			Eventually(func() int {
				owners := map[string]bool{}
				for _, set := range sets {
					Expect(c.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
					owner, _ := ownership.ParseOwner(set.Annotations[replicas.OwnerAnnotation])
					owners[owner.Replica] = true
				}
				return len(owners)
			}).WithTimeout(30 * time.Second).Should(BeNumerically(">=", 2))

			By("no write to a set came from a replica the set did not name when the API server stored it")
			Expect(w.violations()).To(BeEmpty())
			Expect(w.count()).To(BeNumerically(">", 0))
		})
})

// startReplica runs a manager as one replica with --replica-sharding:
// its Lease in ns, the set reconcilers, and a client that records whose
// writes each set took. keepOnStop stops it as a crash does.
func startReplica(env *testenv.Env, ns, name string, keepOnStop bool, w *writeLog) (func() error, error) {
	return env.RunManagerWith(func(opts *ctrl.Options) {
		opts.NewClient = w.newClient(name)
	}, func(mgr ctrl.Manager) error {
		m := &replicas.Membership{Reader: mgr.GetAPIReader(), Writer: mgr.GetClient(), Namespace: ns, Replica: name,
			Timing: fastTiming, KeepOnStop: keepOnStop}
		if err := mgr.Add(m); err != nil {
			return err
		}
		return applysets.SetupWithManager(mgr, applysets.Options{ToolingVersion: version, SingleTenant: true, Replicas: m})
	})
}

// writeLog checks every write of a set against the set the API server
// returned: the owner it names at the resourceVersion the write created
// must be the writer.
type writeLog struct {
	mu      sync.Mutex
	writes  int
	by      map[string]bool
	illegal []string
}

func (w *writeLog) newClient(replica string) func(*rest.Config, client.Options) (client.Client, error) {
	return func(cfg *rest.Config, opts client.Options) (client.Client, error) {
		c, err := client.New(cfg, opts)
		if err != nil {
			return nil, err
		}
		return interceptor.NewClient(withWatch{c}, interceptor.Funcs{
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				err := c.Patch(ctx, obj, patch, opts...)
				w.record(replica, obj, err)
				return err
			},
			Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				err := c.Update(ctx, obj, opts...)
				w.record(replica, obj, err)
				return err
			},
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				err := c.SubResource(sub).Patch(ctx, obj, patch, opts...)
				w.record(replica, obj, err)
				return err
			},
		}), nil
	}
}

func (w *writeLog) record(replica string, obj client.Object, err error) {
	if _, ok := obj.(applyv1alpha1.Set); !ok || err != nil {
		return
	}
	owner, _ := ownership.ParseOwner(obj.GetAnnotations()[replicas.OwnerAnnotation])
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	if w.by == nil {
		w.by = map[string]bool{}
	}
	w.by[replica] = true
	if owner.Replica != replica {
		w.illegal = append(w.illegal, fmt.Sprintf("%s wrote %s at resourceVersion %s, which names %q",
			replica, obj.GetName(), obj.GetResourceVersion(), owner.String()))
	}
}

func (w *writeLog) violations() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string{}, w.illegal...)
}

func (w *writeLog) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes
}

func (w *writeLog) writers() map[string]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]bool{}
	for k := range w.by {
		out[k] = true
	}
	return out
}

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

package apply

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

var _ = Describe("Guarded creates of objects a set has no record of", func() {
	var (
		ns             string
		setID          string
		gets, applies  atomic.Int32
		lists          atomic.Int32
		none           = sets.New[ObjectRef]()
		otherSetsLabel = map[string]string{applyset.PartOfLabel: "applyset-other-v1"}
	)

	BeforeEach(func(ctx context.Context) {
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "guard-"}}
		Expect(k8sClient.Create(ctx, namespace)).To(Succeed())
		ns = namespace.Name
		setID = applyset.ParentKey{GroupKind: schema.GroupKind{Group: "apply.applyset.dev", Kind: "ApplySet"}, Namespace: ns, Name: "set"}.ID()
		gets.Store(0)
		applies.Store(0)
		lists.Store(0)
	})

	// engineAs is an engine acting as user ("" for the admin) whose real
	// client counts the reads and applies it sends.
	engineAs := func(user string) *Engine {
		cfg := rest.CopyConfig(env.Config)
		if user != "" {
			cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
		}
		c, err := client.NewWithWatch(cfg, client.Options{Scheme: k8sClient.Scheme(), Mapper: k8sClient.RESTMapper()})
		Expect(err).NotTo(HaveOccurred())
		return &Engine{FieldManager: fieldManager, Client: interceptor.NewClient(c, interceptor.Funcs{
			Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				gets.Add(1)
				return c.Get(ctx, key, obj, opts...)
			},
			Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
				applies.Add(1)
				return c.Apply(ctx, obj, opts...)
			},
			List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
				lists.Add(1)
				return c.List(ctx, list, opts...)
			},
		})}
	}
	// objects are ConfigMaps of the test namespace, by name and value.
	objects := func(values map[string]string) []Object {
		var yaml string
		for name, value := range values {
			yaml += fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\ndata: {k: %q}\n---\n", name, value)
		}
		inputs, err := Decode("test", []byte(yaml))
		Expect(err).NotTo(HaveOccurred())
		objs, _, err := Check(inputs, Target{Scope: applyset.Scope{Namespace: ns}, DefaultNamespace: ns, Mapper: k8sClient.RESTMapper()})
		Expect(err).NotTo(HaveOccurred())
		return objs
	}
	refsOf := func(objs []Object) sets.Set[ObjectRef] {
		out := sets.New[ObjectRef]()
		for _, o := range objs {
			out.Insert(o.Ref())
		}
		return out
	}
	actions := func(cs ChangeSet) map[string]Action {
		out := map[string]Action{}
		for _, c := range cs.Changes {
			out[c.Ref.Name] = c.Action
		}
		return out
	}
	get := func(ctx context.Context, name string) *corev1.ConfigMap {
		cm := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm)).To(Succeed())
		return cm
	}
	existing := func(ctx context.Context, name, value string, labels map[string]string) {
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
			Data: map[string]string{"k": value}})).To(Succeed())
	}

	It("creates them with one request each, and reads recorded members as before", func(ctx context.Context) {
		engine := engineAs("")
		declared := objects(map[string]string{"a": "1", "b": "1", "c": "1"})
		cs, err := engine.Apply(ctx, declared, ApplyOptions{SetID: setID, Recorded: none})
		Expect(err).NotTo(HaveOccurred())
		Expect(actions(cs)).To(Equal(map[string]Action{"a": Created, "b": Created, "c": Created}))
		Expect(gets.Load()).To(BeZero(), "an object the set has no record of was read before its create")
		Expect(applies.Load()).To(BeEquivalentTo(3))
		cm := get(ctx, "a")
		Expect(cm.Labels).To(HaveKeyWithValue(applyset.PartOfLabel, setID))
		Expect(cm.ManagedFields).To(ConsistOf(SatisfyAll(HaveField("Manager", fieldManager), HaveField("Operation", metav1.ManagedFieldsOperationApply),
			HaveField("FieldsV1.Raw", Not(ContainSubstring("resourceVersion"))))))

		gets.Store(0)
		applies.Store(0)
		cs, err = engine.Apply(ctx, declared, ApplyOptions{SetID: setID, Recorded: refsOf(declared)})
		Expect(err).NotTo(HaveOccurred())
		Expect(actions(cs)).To(Equal(map[string]Action{"a": Unchanged, "b": Unchanged, "c": Unchanged}))
		Expect(gets.Load()).To(BeEquivalentTo(3))
		Expect(applies.Load()).To(BeZero(), "a recorded member that is up to date was written")
	})

	It("lists no kind it records no member of, and lists a kind of many recorded members once", func(ctx context.Context) {
		engine := engineAs("")
		// Five of one kind, more than one list reads (listThreshold).
		declared := objects(map[string]string{"a": "1", "b": "1", "c": "1", "d": "1", "e": "1"})
		cs, err := engine.Apply(ctx, declared, ApplyOptions{SetID: setID, Recorded: none})
		Expect(err).NotTo(HaveOccurred())
		Expect(actions(cs)).To(HaveEach(Created))
		Expect(lists.Load()).To(BeZero(), "a kind holding no recorded member was listed")
		Expect(gets.Load()).To(BeZero())
		Expect(applies.Load()).To(BeEquivalentTo(5))

		applies.Store(0)
		changed := objects(map[string]string{"a": "2", "b": "1", "c": "1", "d": "1", "e": "1", "f": "1"})
		cs, err = engine.Apply(ctx, changed, ApplyOptions{SetID: setID, Recorded: refsOf(declared)})
		Expect(err).NotTo(HaveOccurred())
		Expect(actions(cs)).To(Equal(map[string]Action{"a": Configured, "b": Unchanged, "c": Unchanged, "d": Unchanged,
			"e": Unchanged, "f": Created}))
		Expect(lists.Load()).To(BeEquivalentTo(1), "the recorded members are read with one list")
		Expect(gets.Load()).To(BeZero())
		Expect(applies.Load()).To(BeEquivalentTo(2), "the changed member and the new object")
	})

	It("reads and lists a kind of more members than a page page by page, and judges each", func(ctx context.Context) {
		engine := engineAs("")
		engine.ListPageSize = 2
		values := map[string]string{"a": "1", "b": "1", "c": "1", "d": "1", "e": "1", "f": "1", "g": "1"}
		declared := objects(values)
		_, err := engine.Apply(ctx, declared, ApplyOptions{SetID: setID, Recorded: none})
		Expect(err).NotTo(HaveOccurred())
		// An object another client labelled: never proven, whatever page it is on.
		existing(ctx, "intruder", "x", map[string]string{applyset.PartOfLabel: setID})

		values["a"] = "2"
		delete(values, "g")
		kept := objects(values)
		lists.Store(0)
		cs, err := engine.Apply(ctx, kept, ApplyOptions{SetID: setID, Recorded: refsOf(declared)})
		Expect(err).NotTo(HaveOccurred())
		Expect(actions(cs)).To(Equal(map[string]Action{"a": Configured, "b": Unchanged, "c": Unchanged, "d": Unchanged,
			"e": Unchanged, "f": Unchanged}))
		Expect(lists.Load()).To(BeNumerically(">=", 4), "8 ConfigMaps in pages of 2")
		Expect(gets.Load()).To(BeZero(), "every object was found on a page")

		lists.Store(0)
		plan, err := engine.PlanPrune(ctx, PruneOptions{SetID: setID, Scope: applyset.Scope{Namespace: ns},
			Kinds: sets.New(schema.GroupKind{Kind: "ConfigMap"}), Keep: refsOf(kept), Proven: LabelAppliedBy(sets.New(fieldManager))})
		Expect(err).NotTo(HaveOccurred())
		Expect(lists.Load()).To(BeNumerically(">=", 4), "8 members in pages of 2")
		Expect(plan.Deletes()).To(HaveLen(1))
		Expect(plan.Deletes()).To(HaveKey(HaveField("Name", "g")))
		Expect(plan.Foreign()).To(ConsistOf(SatisfyAll(HaveField("Ref.Name", "intruder"),
			HaveField("LabelledBy", ConsistOf(HaveField("Operation", metav1.ManagedFieldsOperationUpdate))))))
	})

	It("reads with a GET what a list that failed on a later page had not found yet", func(ctx context.Context) {
		engine := engineAs("")
		engine.ListPageSize = 2
		declared := objects(map[string]string{"a": "1", "b": "1", "c": "1", "d": "1", "e": "1"})
		_, err := engine.Apply(ctx, declared, ApplyOptions{SetID: setID, Recorded: none})
		Expect(err).NotTo(HaveOccurred())

		// The continuation expires, as it does after etcd's compaction.
		real := engine.Client
		engine.Client = interceptor.NewClient(real.(client.WithWatch), interceptor.Funcs{
			List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
				if (&client.ListOptions{}).ApplyOptions(opts).Continue != "" {
					return apierrors.NewResourceExpired("the continue token expired")
				}
				return c.List(ctx, list, opts...)
			},
		})
		gets.Store(0)
		changed := objects(map[string]string{"a": "2", "b": "1", "c": "1", "d": "1", "e": "2"})
		cs, err := engine.Apply(ctx, changed, ApplyOptions{SetID: setID, Recorded: refsOf(declared)})
		Expect(err).NotTo(HaveOccurred())
		Expect(actions(cs)).To(Equal(map[string]Action{"a": Configured, "b": Unchanged, "c": Unchanged, "d": Unchanged, "e": Configured}))
		Expect(gets.Load()).To(BeEquivalentTo(3), "the first page found two of five")
		Expect(get(ctx, "e").Data).To(HaveKeyWithValue("k", "2"))
	})

	It("reads one only once it exists, refuses another set's even with force, and adopts the others", func(ctx context.Context) {
		existing(ctx, "theirs", "theirs", otherSetsLabel)
		existing(ctx, "unlabelled", "old", nil)
		engine := engineAs("")
		// Three, fewer than one list reads (listThreshold).
		declared := objects(map[string]string{"theirs": "ours", "unlabelled": "new", "fresh": "1"})

		cs, err := engine.Apply(ctx, declared, ApplyOptions{SetID: setID, Force: true, Recorded: none})
		Expect(errors.Is(err, ErrOverlap)).To(BeTrue(), "%v", err)
		Expect(actions(cs)).To(Equal(map[string]Action{"theirs": Failed, "unlabelled": Configured, "fresh": Created}))
		Expect(gets.Load()).To(BeEquivalentTo(2), "only the two that exist are read")
		Expect(get(ctx, "theirs").Labels).To(Equal(otherSetsLabel))
		Expect(get(ctx, "theirs").Data).To(HaveKeyWithValue("k", "theirs"))
		for _, name := range []string{"unlabelled", "fresh"} {
			Expect(get(ctx, name).Labels).To(HaveKeyWithValue(applyset.PartOfLabel, setID), name)
		}
		Expect(get(ctx, "unlabelled").Data).To(HaveKeyWithValue("k", "new"))
	})

	It("adopts an existing object as an identity that may patch but not create, and says what a new one needs", func(ctx context.Context) {
		existing(ctx, "there", "old", nil)
		engine := engineAs(grantConfigMaps(ctx, ns, "patcher", "get", "list", "patch"))

		var cs ChangeSet
		Eventually(func() (err error) {
			cs, err = engine.Apply(ctx, objects(map[string]string{"there": "new"}), ApplyOptions{SetID: setID, Recorded: none})
			return err
		}).Should(Succeed())
		Expect(actions(cs)).To(Equal(map[string]Action{"there": Configured}))
		Expect(get(ctx, "there").Labels).To(HaveKeyWithValue(applyset.PartOfLabel, setID))

		_, err := engine.Apply(ctx, objects(map[string]string{"there": "new", "fresh": "1"}), ApplyOptions{SetID: setID, Recorded: none})
		var denied *AccessError
		Expect(errors.As(err, &denied)).To(BeTrue(), "%v", err)
		Expect(denied.Missing).To(ConsistOf(Permission{Verb: "create", Resource: schema.GroupResource{Resource: "configmaps"}, Namespace: ns}))
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "fresh"}, &corev1.ConfigMap{})).NotTo(Succeed())
	})

	It("writes nothing when the identity may not read the objects it has no record of", func(ctx context.Context) {
		existing(ctx, "hidden", "theirs", otherSetsLabel)
		engine := engineAs(grantConfigMaps(ctx, ns, "blind", "create", "patch"))

		// Until the new RoleBinding is seen, create and patch are refused too.
		Eventually(func() ([]Permission, error) {
			_, err := engine.Apply(ctx, objects(map[string]string{"hidden": "ours", "fresh": "1"}), ApplyOptions{SetID: setID, Recorded: none})
			var denied *AccessError
			if !errors.As(err, &denied) {
				return nil, fmt.Errorf("not refused for a permission: %w", err)
			}
			return denied.Missing, nil
		}).Should(ConsistOf(Permission{Verb: "get", Resource: schema.GroupResource{Resource: "configmaps"}, Namespace: ns}))
		Expect(applies.Load()).To(BeZero(), "an object was applied although reading another was refused")
		Expect(get(ctx, "hidden").Labels).To(Equal(otherSetsLabel))
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "fresh"}, &corev1.ConfigMap{})).NotTo(Succeed())
	})
})

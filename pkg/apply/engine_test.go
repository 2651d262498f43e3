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
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

const fieldManager = "applyset-operator"

var _ = Describe("The apply engine", func() {
	var (
		ns     string
		engine *Engine
		setID  string
	)

	BeforeEach(func(ctx context.Context) {
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "engine-"}}
		Expect(k8sClient.Create(ctx, namespace)).To(Succeed())
		ns = namespace.Name
		engine = &Engine{Client: k8sClient, FieldManager: fieldManager}
		setID = applyset.ParentKey{GroupKind: schema.GroupKind{Group: "apply.applyset.dev", Kind: "ApplySet"}, Namespace: ns, Name: "set"}.ID()
	})

	// objects decodes and checks YAML for the test namespace's set.
	objects := func(yaml string) []Object {
		inputs, err := Decode("test", []byte(yaml))
		Expect(err).NotTo(HaveOccurred())
		objs, _, err := Check(inputs, Target{Scope: applyset.Scope{Namespace: ns}, DefaultNamespace: ns, Mapper: k8sClient.RESTMapper()})
		Expect(err).NotTo(HaveOccurred())
		return objs
	}
	configMap := func(name, value string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\ndata: {k: %q}\n---\n", name, value)
	}
	actions := func(cs ChangeSet) map[string]Action {
		out := map[string]Action{}
		for _, c := range cs.Changes {
			out[c.Ref.Name] = c.Action
		}
		return out
	}
	get := func(ctx context.Context, name string) (*corev1.ConfigMap, error) {
		cm := &corev1.ConfigMap{}
		return cm, k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm)
	}

	It("creates, then leaves unchanged, then configures with the changed fields", func(ctx context.Context) {
		cs, err := engine.Apply(ctx, objects(configMap("a", "1")+configMap("b", "1")), ApplyOptions{SetID: setID})
		Expect(err).NotTo(HaveOccurred())
		Expect(actions(cs)).To(Equal(map[string]Action{"a": Created, "b": Created}))
		cm, err := get(ctx, "a")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Labels).To(HaveKeyWithValue(applyset.PartOfLabel, setID))
		Expect(cm.ManagedFields).To(ContainElement(HaveField("Manager", fieldManager)))

		cs, err = engine.Apply(ctx, objects(configMap("a", "1")+configMap("b", "1")), ApplyOptions{SetID: setID})
		Expect(err).NotTo(HaveOccurred())
		Expect(actions(cs)).To(Equal(map[string]Action{"a": Unchanged, "b": Unchanged}))

		cs, err = engine.Apply(ctx, objects(configMap("a", "2")+configMap("b", "1")), ApplyOptions{SetID: setID})
		Expect(err).NotTo(HaveOccurred())
		Expect(cs.Changes).To(ContainElement(SatisfyAll(HaveField("Ref.Name", "a"), HaveField("Action", Configured),
			HaveField("Fields", Equal([]string{".data.k"})))))
	})

	It("reads many objects of a kind with one list, and still sees overlaps and changes", func(ctx context.Context) {
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c4",
			Labels: map[string]string{applyset.PartOfLabel: "applyset-other-v1"}}})).To(Succeed())
		var yaml string
		for i := range 6 {
			yaml += configMap(fmt.Sprintf("c%d", i), "1")
		}
		cs, err := engine.Apply(ctx, objects(yaml), ApplyOptions{SetID: setID})
		Expect(errors.Is(err, ErrOverlap)).To(BeTrue(), "%v", err)
		Expect(actions(cs)).To(Equal(map[string]Action{"c0": Created, "c1": Created, "c2": Created, "c3": Created,
			"c4": Failed, "c5": Created}))

		yaml = ""
		for i := range 6 {
			if i != 4 {
				yaml += configMap(fmt.Sprintf("c%d", i), map[bool]string{true: "2", false: "1"}[i == 0])
			}
		}
		cs, err = engine.Apply(ctx, objects(yaml), ApplyOptions{SetID: setID})
		Expect(err).NotTo(HaveOccurred())
		Expect(actions(cs)).To(Equal(map[string]Action{"c0": Configured, "c1": Unchanged, "c2": Unchanged, "c3": Unchanged, "c5": Unchanged}))
	})

	It("previews with server-side dry-run, changing nothing, and the preview equals the real apply", func(ctx context.Context) {
		_, err := engine.Apply(ctx, objects(configMap("kept", "1")+configMap("changed", "1")), ApplyOptions{SetID: setID})
		Expect(err).NotTo(HaveOccurred())
		declared := objects(configMap("kept", "1") + configMap("changed", "2") + configMap("new", "1"))

		preview, err := engine.Apply(ctx, declared, ApplyOptions{SetID: setID, DryRun: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(preview.DryRun).To(BeTrue())
		_, err = get(ctx, "new")
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a dry run created an object")
		cm, err := get(ctx, "changed")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(HaveKeyWithValue("k", "1"), "a dry run changed an object")

		real, err := engine.Apply(ctx, declared, ApplyOptions{SetID: setID})
		Expect(err).NotTo(HaveOccurred())
		// The real apply returns the objects it left; a preview, each object
		// before and as the dry run answered, and that answer is what the apply did.
		Expect(withoutObjects(preview.Changes)).To(Equal(withoutObjects(real.Changes)))
		for _, c := range preview.Changes {
			Expect(c.Object).To(BeNil(), c.Ref.String())
			if c.Action == Unchanged {
				continue
			}
			applied := real.Changes[slices.IndexFunc(real.Changes, func(r Change) bool { return r.Ref == c.Ref })].Object
			Expect(c.Preview.Object["data"]).To(Equal(applied.Object["data"]), c.Ref.String())
			Expect(c.Preview.GetLabels()).To(Equal(applied.GetLabels()), c.Ref.String())
		}
		byName := map[string]Change{}
		for _, c := range preview.Changes {
			byName[c.Ref.Name] = c
		}
		Expect(byName["new"].Live).To(BeNil())
		Expect(byName["changed"].Live.Object["data"]).To(HaveKeyWithValue("k", "1"))
		Expect(real.Changes).To(HaveEach(HaveField("Object", Not(BeNil()))))
		Expect(actions(real)).To(Equal(map[string]Action{"kept": Unchanged, "changed": Configured, "new": Created}))
	})

	It("refuses an object that belongs to another set and leaves it alone", func(ctx context.Context) {
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "theirs",
			Labels: map[string]string{applyset.PartOfLabel: "applyset-other-v1"}}, Data: map[string]string{"k": "theirs"}})).To(Succeed())
		cs, err := engine.Apply(ctx, objects(configMap("theirs", "ours")+configMap("ours", "1")), ApplyOptions{SetID: setID})
		Expect(errors.Is(err, ErrOverlap)).To(BeTrue(), "%v", err)
		Expect(actions(cs)).To(Equal(map[string]Action{"theirs": Failed, "ours": Created}))
		cm, err := get(ctx, "theirs")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(HaveKeyWithValue("k", "theirs"))
		Expect(cm.Labels).To(HaveKeyWithValue(applyset.PartOfLabel, "applyset-other-v1"))
	})

	It("reports a conflict with the manager that owns the field, and takes it over with force", func(ctx context.Context) {
		other := &Engine{Client: k8sClient, FieldManager: "team-b-deployer"}
		_, err := other.Apply(ctx, objects(configMap("shared", "b")), ApplyOptions{SetID: setID})
		Expect(err).NotTo(HaveOccurred())

		cs, err := engine.Apply(ctx, objects(configMap("shared", "a")), ApplyOptions{SetID: setID})
		Expect(apierrors.IsConflict(err)).To(BeTrue(), "%v", err)
		Expect(cs.Conflicts).To(ConsistOf(SatisfyAll(HaveField("Manager", "team-b-deployer"),
			HaveField("Fields", ContainElement(".data.k")))))
		Expect(cs.Conflicts[0].Message()).To(ContainSubstring("team-b-deployer applied .data.k with other values"))

		cs, err = engine.Apply(ctx, objects(configMap("shared", "a")), ApplyOptions{SetID: setID, Force: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(actions(cs)).To(Equal(map[string]Action{"shared": Configured}))
	})

	It("puts back declared fields that someone edited, without force", func(ctx context.Context) {
		_, err := engine.Apply(ctx, objects(configMap("drifted", "declared")), ApplyOptions{SetID: setID})
		Expect(err).NotTo(HaveOccurred())
		cm, err := get(ctx, "drifted")
		Expect(err).NotTo(HaveOccurred())
		cm.Data["k"] = "edited"
		Expect(k8sClient.Update(ctx, cm, client.FieldOwner("kubectl-edit"))).To(Succeed())

		cs, err := engine.Apply(ctx, objects(configMap("drifted", "declared")), ApplyOptions{SetID: setID})
		Expect(err).NotTo(HaveOccurred())
		Expect(cs.Conflicts).To(BeEmpty())
		Expect(cs.Changes).To(ConsistOf(SatisfyAll(HaveField("Action", Configured), HaveField("Fields", ConsistOf(".data.k")))))
		cm, err = get(ctx, "drifted")
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data).To(HaveKeyWithValue("k", "declared"))
	})

	It("applies a CRD and objects of its kind in one set, and previews them first", func(ctx context.Context) {
		group := ns + ".example.com"
		set := fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.%[1]s}
spec:
  group: %[1]s
  scope: Namespaced
  names: {kind: Gadget, plural: gadgets, singular: gadget, listKind: GadgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
---
apiVersion: %[1]s/v1
kind: Gadget
metadata: {name: g}
spec: {size: 3}
`, group)
		preview, err := engine.Apply(ctx, objects(set), ApplyOptions{SetID: setID, DryRun: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(preview.Changes).To(ContainElement(SatisfyAll(HaveField("Ref.Name", "g"), HaveField("Action", Created),
			HaveField("Reason", ContainSubstring("created by this set")))))

		cs, err := engine.Apply(ctx, objects(set), ApplyOptions{SetID: setID})
		Expect(err).NotTo(HaveOccurred())
		Expect(actions(cs)).To(HaveKeyWithValue("g", Created))
		Expect(actions(cs)).To(HaveKeyWithValue("gadgets."+group, Created))
	})

	It("prunes members no longer declared, keeps those another object owns, and previews first", func(ctx context.Context) {
		_, err := engine.Apply(ctx, objects(configMap("a", "1")+configMap("gone", "1")+configMap("owned", "1")), ApplyOptions{SetID: setID})
		Expect(err).NotTo(HaveOccurred())
		owner, err := get(ctx, "a")
		Expect(err).NotTo(HaveOccurred())
		owned, err := get(ctx, "owned")
		Expect(err).NotTo(HaveOccurred())
		owned.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "a", UID: owner.UID}}
		Expect(k8sClient.Update(ctx, owned)).To(Succeed())
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "not-a-member"}})).To(Succeed())
		// A controller copied the set's labels onto what it made: the label is there, the set's apply is not.
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "copied",
			Labels: map[string]string{applyset.PartOfLabel: setID}}}, client.FieldOwner("copying-controller"))).To(Succeed())

		keep := objects(configMap("a", "1"))
		target := PruneOptions{
			SetID: setID, ParentUID: "parent-uid", Scope: applyset.Scope{Namespace: ns},
			Kinds:  sets.New(schema.GroupKind{Kind: "ConfigMap"}, schema.GroupKind{Kind: "Secret"}),
			Keep:   sets.New(keep[0].Ref()),
			Proven: LabelAppliedBy(sets.New(fieldManager)),
		}
		dry := target
		dry.DryRun = true
		preview, err := engine.Prune(ctx, dry)
		Expect(err).NotTo(HaveOccurred())
		Expect(actions(preview)).To(Equal(map[string]Action{"gone": Pruned, "owned": Skipped, "copied": Foreign}))
		Expect(preview.Changes).To(ContainElement(SatisfyAll(HaveField("Ref.Name", "copied"),
			HaveField("Reason", ContainSubstring("labelled by copying-controller (Update)")))))
		_, err = get(ctx, "gone")
		Expect(err).NotTo(HaveOccurred(), "a dry-run prune deleted an object")

		cs, err := engine.Prune(ctx, target)
		Expect(err).NotTo(HaveOccurred())
		Expect(cs.Changes).To(Equal(preview.Changes))
		Expect(cs.Changes).To(ContainElement(SatisfyAll(HaveField("Ref.Name", "owned"),
			HaveField("Reason", ContainSubstring("owned by ConfigMap a")))))
		_, err = get(ctx, "gone")
		Expect(apierrors.IsNotFound(err)).To(BeTrue())
		for _, name := range []string{"a", "owned", "not-a-member", "copied"} {
			_, err := get(ctx, name)
			Expect(err).NotTo(HaveOccurred(), "%s was deleted", name)
		}

		none := target
		none.Proven = nil
		cs, err = engine.Prune(ctx, none)
		Expect(err).NotTo(HaveOccurred())
		Expect(cs.Count(Pruned)).To(BeZero(), "a prune without proof deleted something")
	})

	It("skips a namespace that is gone, and names the permission for one that is not", func(ctx context.Context) {
		// An identity with no rights anywhere: every list it makes is refused.
		cfg := rest.CopyConfig(env.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":nobody"}
		restricted, err := client.New(cfg, client.Options{Scheme: k8sClient.Scheme(), Mapper: k8sClient.RESTMapper()})
		Expect(err).NotTo(HaveOccurred())
		exists := func(ctx context.Context, name string) (bool, error) {
			err := k8sClient.Get(ctx, client.ObjectKey{Name: name}, &corev1.Namespace{})
			return err == nil, client.IgnoreNotFound(err)
		}
		engine := &Engine{Client: restricted, FieldManager: fieldManager, NamespaceExists: exists}
		opts := PruneOptions{SetID: setID, Scope: applyset.Scope{Namespace: ns, AdditionalNamespaces: sets.New("long-gone")},
			Kinds: sets.New(schema.GroupKind{Kind: "ConfigMap"})}

		_, err = engine.Prune(ctx, opts)
		var denied *AccessError
		Expect(errors.As(err, &denied)).To(BeTrue(), "%v", err)
		Expect(denied.Missing).To(ConsistOf(Permission{Verb: "list", Resource: schema.GroupResource{Resource: "configmaps"}, Namespace: ns}),
			"the namespace that is gone was not skipped, or the one that exists was")
	})

	It("writes nothing when the identity lacks one of the permissions the apply needs", func(ctx context.Context) {
		cfg := rest.CopyConfig(env.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: grantConfigMaps(ctx, ns, "configmaps-only", "*")}
		restricted, err := client.New(cfg, client.Options{Scheme: k8sClient.Scheme(), Mapper: k8sClient.RESTMapper()})
		Expect(err).NotTo(HaveOccurred())
		engine := &Engine{Client: restricted, FieldManager: fieldManager}
		secret := "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"

		Eventually(func() error {
			_, err := engine.Apply(ctx, objects(configMap("allowed", "1")+secret), ApplyOptions{SetID: setID})
			return err
		}).Should(MatchError(ContainSubstring("may not create, get and patch secrets in namespace " + ns)))
		_, err = get(ctx, "allowed")
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a ConfigMap was applied although the Secret beside it was refused")
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "s"}, &corev1.Secret{})).NotTo(Succeed())
	})

	It("disbands every proven member, and changes nothing else of them", func(ctx context.Context) {
		_, err := engine.Apply(ctx, objects(configMap("a", "1")+configMap("b", "2")), ApplyOptions{SetID: setID})
		Expect(err).NotTo(HaveOccurred())
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "labelled-by-hand",
			Labels: map[string]string{applyset.PartOfLabel: setID}}}, client.FieldOwner("kubectl-label"))).To(Succeed())
		kinds := sets.New(schema.GroupKind{Kind: "ConfigMap"})
		proven := LabelAppliedBy(sets.New(fieldManager))

		preview, err := engine.Disband(ctx, DisbandOptions{SetID: setID, Scope: applyset.Scope{Namespace: ns}, Kinds: kinds, Proven: proven, DryRun: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(actions(preview)).To(Equal(map[string]Action{"a": Disbanded, "b": Disbanded, "labelled-by-hand": Foreign}))
		a, err := get(ctx, "a")
		Expect(err).NotTo(HaveOccurred())
		Expect(a.Labels).To(HaveKeyWithValue(applyset.PartOfLabel, setID), "a dry run removed the label")

		cs, err := engine.Disband(ctx, DisbandOptions{SetID: setID, Scope: applyset.Scope{Namespace: ns}, Kinds: kinds, Proven: proven})
		Expect(err).NotTo(HaveOccurred())
		Expect(cs.Changes).To(Equal(preview.Changes))
		for name, value := range map[string]string{"a": "1", "b": "2"} {
			cm, err := get(ctx, name)
			Expect(err).NotTo(HaveOccurred())
			Expect(cm.Labels).NotTo(HaveKey(applyset.PartOfLabel))
			Expect(cm.Data).To(HaveKeyWithValue("k", value))
		}
		byHand, err := get(ctx, "labelled-by-hand")
		Expect(err).NotTo(HaveOccurred())
		Expect(byHand.Labels).To(HaveKeyWithValue(applyset.PartOfLabel, setID), "an object the set did not apply was released")
	})
})

func withoutObjects(changes []Change) []Change {
	out := make([]Change, 0, len(changes))
	for _, c := range changes {
		c.Object, c.Live, c.Preview = nil, nil, nil
		out = append(out, c)
	}
	return out
}

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

package setrun

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// cluster is a fake API server of ConfigMaps: no control plane, an
// identity allowed everything but what deny names (verb resource).
type cluster struct {
	client client.WithWatch
	deny   map[string]bool
	mu     sync.Mutex
	writes []string // the writes made to members, in order
}

// wrote logs a write to a member; the engine writes several at once.
func (c *cluster) wrote(what string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, what)
}

// written counts the writes to members so far.
func (c *cluster) written() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.writes)
}

func newCluster(t *testing.T, objects ...client.Object) *cluster {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{corev1.SchemeGroupVersion})
	mapper.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	c := &cluster{deny: map[string]bool{}}
	c.client = fake.NewClientBuilder().WithScheme(scheme).WithRESTMapper(mapper).WithObjects(objects...).
		WithInterceptorFuncs(interceptor.Funcs{
			Create: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				switch review := obj.(type) {
				case *authorizationv1.SelfSubjectAccessReview:
					a := review.Spec.ResourceAttributes
					review.Status.Allowed = !c.deny[a.Verb+" "+a.Resource]
					return nil
				case *authorizationv1.SelfSubjectRulesReview:
					// Rules this fake does not list: access reviews answer.
					review.Status.Incomplete = true
					return nil
				}
				c.wrote("create " + obj.GetName())
				return cl.Create(ctx, obj, opts...)
			},
			Apply: func(ctx context.Context, cl client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
				u := obj.(applied)
				dryRun := (&client.ApplyOptions{}).ApplyOptions(opts).DryRun != nil
				if !dryRun {
					c.wrote("apply " + u.GetName())
				}
				if err := cl.Apply(ctx, obj, opts...); err != nil || dryRun || u.GetUID() != "" {
					return err
				}
				// The fake gives created objects no UID; the API server does.
				stored := &corev1.ConfigMap{}
				if err := cl.Get(ctx, client.ObjectKey{Namespace: u.GetNamespace(), Name: u.GetName()}, stored); err != nil {
					return err
				}
				stored.UID = types.UID("uid-" + u.GetName())
				u.SetUID(stored.UID)
				return cl.Update(ctx, stored)
			},
			Patch: func(ctx context.Context, cl client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				if (&client.PatchOptions{}).ApplyOptions(opts).DryRun == nil {
					c.wrote("patch " + obj.GetName())
				}
				return cl.Patch(ctx, obj, patch, opts...)
			},
			Update: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				if (&client.UpdateOptions{}).ApplyOptions(opts).DryRun == nil {
					c.wrote("update " + obj.GetName())
				}
				return cl.Update(ctx, obj, opts...)
			},
			Delete: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
				if (&client.DeleteOptions{}).ApplyOptions(opts).DryRun == nil {
					c.wrote("delete " + obj.GetName())
				}
				return cl.Delete(ctx, obj, opts...)
			},
		}).Build()
	return c
}

// applied is what an apply of an unstructured object passes.
type applied interface {
	GetName() string
	GetNamespace() string
	GetUID() types.UID
	SetUID(types.UID)
}

func (c *cluster) engine() *apply.Engine {
	return &apply.Engine{Client: c.client, FieldManager: identity.MembersFieldManager}
}

// writes is a fake of what a run writes to the set itself: it logs each
// call with the member writes made before it, and fails as told.
type writes struct {
	c     *cluster
	calls []string
	fail  map[string]error
}

func (w *writes) log(call string) error {
	w.calls = append(w.calls, fmt.Sprintf("%s after %d member writes", call, w.c.written()))
	return w.fail[call]
}

func (w *writes) Hints(_ context.Context, h declared.Hints) error {
	return w.log("hints " + applyset.FormatGroupKinds(h.Kinds))
}
func (w *writes) Spend(context.Context, Spending) error { return w.log("spend") }
func (w *writes) Chunked(context.Context) error         { return w.log("chunked") }
func (w *writes) BeforeDelete(context.Context) error    { return w.log("before-delete") }

func configMap(name string) applyv1alpha1.Resource { return configMapOf(name, "v") }

func configMapOf(name, value string) applyv1alpha1.Resource {
	r, err := applyv1alpha1.NewResource(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name}, "data": map[string]any{"k": value}})
	if err != nil {
		panic(err)
	}
	return r
}

func testSet(names ...string) *applyv1alpha1.ApplySet {
	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web", UID: "set-uid"}}
	for _, n := range names {
		set.Spec.Resources = append(set.Spec.Resources, configMap(n))
	}
	return set
}

func parentOf(set *applyv1alpha1.ApplySet, kinds ...string) applyset.Parent {
	key := applyset.ParentKey{GroupKind: schema.GroupKind{Group: applyv1alpha1.GroupVersion.Group, Kind: "ApplySet"},
		Namespace: set.Namespace, Name: set.Name}
	return applyset.ParseParent(key, map[string]string{applyset.IDLabel: key.ID()},
		map[string]string{applyset.GroupKindsAnnotation: strings.Join(kinds, ",")})
}

// member is a ConfigMap the set labelled, of UID uid.
func member(set *applyv1alpha1.ApplySet, name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: set.Namespace, Name: name, UID: types.UID("uid-" + name),
		Labels: map[string]string{applyset.PartOfLabel: parentOf(set).Key.ID()}}}
}

// recorded is a status recording names as the set's members.
func recorded(names ...string) []applyv1alpha1.Member {
	var out []applyv1alpha1.Member
	for _, n := range names {
		out = append(out, applyv1alpha1.Member{ObjectReference: applyv1alpha1.ObjectReference{Kind: "ConfigMap", Namespace: "team", Name: n},
			UID: "uid-" + n})
	}
	return out
}

// runCase is a run of the set declaring declares, with members recorded,
// objects live; approve, when set, approves the plan an earlier identical
// run awaited.
type runCase struct {
	name      string
	mode      Mode
	declares  []string
	recorded  []string
	live      []string
	configure func(*applyv1alpha1.ApplySet)
	deny      string // a permission the identity lacks
	fail      string // a call of the writes that fails
	approve   bool
	// held runs it while its windows hold it; override, when set, then lets
	// through the plan an earlier identical run was held with, or names
	// another plan.
	held        bool
	override    string
	wantReason  string
	wantCalls   []string
	wantWrites  []string
	wantMembers []string // nil: no inventory recorded
}

func (tc runCase) do(t *testing.T) (*cluster, *writes, Result) {
	t.Helper()
	set := testSet(tc.declares...)
	set.Status.Members = recorded(tc.recorded...)
	if tc.configure != nil {
		tc.configure(set)
	}
	var objects []client.Object
	for _, n := range tc.live {
		objects = append(objects, member(set, n))
	}
	c := newCluster(t, objects...)
	if tc.deny != "" {
		c.deny[tc.deny] = true
	}
	w := &writes{c: c, fail: map[string]error{}}
	if tc.fail != "" {
		w.fail[tc.fail] = errors.New("refused by the test")
	}
	members := inventory.FromStatus(set.Status.Members)
	run := &Run{Mode: tc.mode, Set: set, Stored: &set.Status, Members: &members, Parent: parentOf(set, "ConfigMap"),
		Engine: c.engine(), Sources: c.client, Mapper: c.client.RESTMapper(), Limits: declared.DefaultLimits, Writes: w,
		Approval: set.Spec.ApprovalMode()}
	if tc.held {
		run.Window = &WindowHold{Override: tc.override}
	}
	res := run.Do(context.Background())
	if tc.held && tc.override == heldDigest {
		if res.Window == nil || !res.Window.Held || res.Window.Digest == "" {
			t.Fatalf("no plan was held: %+v", res)
		}
		run.Window.Override = res.Window.Digest
		c.writes, w.calls = nil, nil
		res = run.Do(context.Background())
	}
	if tc.approve {
		if res.Approval == nil || !res.Approval.Awaiting {
			t.Fatalf("nothing awaited approval: %+v", res)
		}
		set.Spec.ApprovedPlan = ptr.To(res.Approval.Digest)
		c.writes, w.calls = nil, nil
		res = run.Do(context.Background())
	}
	return c, w, res
}

// heldDigest, as a runCase's override, names the plan the run was held with.
const heldDigest = "held"

func (tc runCase) check(t *testing.T) {
	t.Helper()
	c, w, res := tc.do(t)
	if res.Reason != tc.wantReason {
		t.Errorf("reason %q (%v), want %q", res.Reason, res.Err, tc.wantReason)
	}
	if !slices.Equal(w.calls, tc.wantCalls) {
		t.Errorf("writes of the set %q, want %q", w.calls, tc.wantCalls)
	}
	slices.Sort(c.writes)
	if !slices.Equal(c.writes, tc.wantWrites) {
		t.Errorf("writes of members %q, want %q", c.writes, tc.wantWrites)
	}
	var members []string
	if res.Inventory != nil {
		members = []string{}
		for _, ref := range res.Inventory.Refs() {
			members = append(members, ref.Name)
		}
	}
	if !slices.Equal(members, tc.wantMembers) {
		t.Errorf("inventory %q, want %q", members, tc.wantMembers)
	}
}

// A run of a set, against a fake of the API server and of its own writes:
// what it writes to the set, when, and what it writes to members.
func TestRunApply(t *testing.T) {
	manual := func(set *applyv1alpha1.ApplySet) { set.Spec.Approval = applyv1alpha1.ApprovalManual }
	for _, tc := range []runCase{
		{name: "a first apply widens the hints before any member, and narrows them after the prune",
			declares: []string{"a", "b"}, wantCalls: []string{"hints ConfigMap after 0 member writes", "hints ConfigMap after 2 member writes"},
			wantWrites: []string{"apply a", "apply b"}, wantMembers: []string{"a", "b"}},
		{name: "it prunes a recorded member that left the set, never an object that only carries its label",
			declares: []string{"a"}, recorded: []string{"a", "c"}, live: []string{"a", "c", "foreign"},
			wantCalls: []string{"hints ConfigMap after 0 member writes", "before-delete after 1 member writes",
				"hints ConfigMap after 2 member writes"},
			wantWrites: []string{"apply a", "delete c"}, wantMembers: []string{"a"}},
		{name: "hints that cannot be written stop it before any member is",
			declares: []string{"a"}, fail: "hints ConfigMap", wantReason: applyv1alpha1.ReasonApplyFailed,
			wantCalls: []string{"hints ConfigMap after 0 member writes"}, wantMembers: []string{}},
		{name: "a missing permission stops it before anything is written",
			declares: []string{"a"}, recorded: []string{"c"}, live: []string{"c"}, deny: "delete configmaps",
			wantReason: applyv1alpha1.ReasonAccessDenied, wantMembers: []string{"c"}},
		{name: "a plan awaiting approval writes nothing", declares: []string{"a"}, configure: manual,
			wantReason: ""},
		{name: "an approved plan is spent before the hints and any member", declares: []string{"a"}, configure: manual, approve: true,
			wantCalls: []string{"spend after 0 member writes", "hints ConfigMap after 0 member writes",
				"hints ConfigMap after 1 member writes"},
			wantWrites: []string{"apply a"}, wantMembers: []string{"a"}},
		{name: "an approval that cannot be spent stops it before any member", declares: []string{"a"}, configure: manual,
			approve: true, fail: "spend", wantReason: applyv1alpha1.ReasonApplyFailed,
			wantCalls: []string{"spend after 0 member writes"}, wantMembers: []string{}},
		{name: "a plan its windows hold writes nothing", declares: []string{"a"}, held: true},
		{name: "an override of another plan lets nothing through", declares: []string{"a"}, held: true,
			override: "sha256:" + strings.Repeat("0", 64)},
		{name: "an override of its plan is spent before the hints and any member", declares: []string{"a"}, held: true,
			override: heldDigest, wantCalls: []string{"spend after 0 member writes", "hints ConfigMap after 0 member writes",
				"hints ConfigMap after 1 member writes"},
			wantWrites: []string{"apply a"}, wantMembers: []string{"a"}},
		{name: "an override that cannot be spent stops it before any member", declares: []string{"a"}, held: true,
			override: heldDigest, fail: "spend", wantReason: applyv1alpha1.ReasonApplyFailed,
			wantCalls: []string{"spend after 0 member writes"}, wantMembers: []string{}},
		{name: "under Manual, an override lets nothing through that is not approved too", declares: []string{"a"},
			configure: manual, held: true, override: heldDigest},
		{name: "inputs emptied while it has members stop it, pruning nothing",
			recorded: []string{"a"}, live: []string{"a"}, wantReason: applyv1alpha1.ReasonEmptySource},
	} {
		t.Run(tc.name, tc.check)
	}
}

// A deletion releases only what the record proves, asking first.
func TestRunDelete(t *testing.T) {
	orphan := func(set *applyv1alpha1.ApplySet) { set.Spec.DeletionPolicy = applyv1alpha1.DeletionPolicyOrphan }
	for _, tc := range []runCase{
		{name: "it deletes the recorded members, never an object that only carries the set's label", mode: Delete,
			recorded: []string{"a", "b"}, live: []string{"a", "b", "foreign"},
			wantCalls: []string{"before-delete after 0 member writes"}, wantWrites: []string{"delete a", "delete b"}},
		{name: "a refusal before the deletes stops every one", mode: Delete, recorded: []string{"a"}, live: []string{"a"},
			fail: "before-delete", wantReason: applyv1alpha1.ReasonDeletionBlocked,
			wantCalls: []string{"before-delete after 0 member writes"}},
		{name: "under deletionPolicy Orphan it takes the label off, and deletes nothing", mode: Delete, configure: orphan,
			recorded: []string{"a"}, live: []string{"a", "foreign"}, wantWrites: []string{"patch a"}},
		{name: "a preview writes nothing", mode: DeletePreview, recorded: []string{"a"}, live: []string{"a"}},
	} {
		t.Run(tc.name, tc.check)
	}
}

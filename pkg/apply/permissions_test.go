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
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

func TestPermissionsReuse(t *testing.T) {
	patch := Permission{Verb: "patch", Resource: schema.GroupResource{Resource: "configmaps"}, Namespace: "a"}
	create := Permission{Verb: "create", Resource: schema.GroupResource{Resource: "configmaps"}, Namespace: "a"}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name              string
		ttl               time.Duration
		record            []Permission // allowed, at `at`
		deny              []Permission // denied, at `at`
		forget            bool
		ask               Permission
		after             time.Duration
		wantCached        bool
		wantAllowed       bool
		wantGrantedLately bool
	}{
		{name: "an allowed answer within its lifetime", ttl: 10 * time.Second, record: []Permission{patch}, ask: patch,
			after: 9 * time.Second, wantCached: true, wantAllowed: true, wantGrantedLately: true},
		{name: "a denied answer within its lifetime", ttl: 10 * time.Second, deny: []Permission{patch}, ask: patch,
			after: time.Second, wantCached: true},
		{name: "an answer past its lifetime is asked again, and still backs a retry", ttl: 10 * time.Second, record: []Permission{patch},
			ask: patch, after: 10 * time.Second, wantGrantedLately: true},
		{name: "another permission is not answered", ttl: 10 * time.Second, record: []Permission{patch}, ask: create, after: time.Second},
		{name: "no lifetime reuses nothing, but backs a retry", record: []Permission{patch}, ask: patch, wantGrantedLately: true},
		{name: "a grant older than the retry's window backs none", record: []Permission{patch}, ask: patch, after: grantLife},
		{name: "forgotten answers are asked again and back no retry", ttl: time.Minute, record: []Permission{patch}, forget: true,
			ask: patch, after: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewPermissions(tt.ttl)
			for _, p := range tt.record {
				c.recordUnlessForgotten(p, true, at, 0)
			}
			for _, p := range tt.deny {
				c.recordUnlessForgotten(p, false, at, 0)
			}
			if tt.forget {
				c.Forget()
			}
			allowed, cached := c.cached(tt.ask, at.Add(tt.after))
			if cached != tt.wantCached || allowed != tt.wantAllowed {
				t.Errorf("cached(%s) = %v, %v; want %v, %v", tt.ask, allowed, cached, tt.wantAllowed, tt.wantCached)
			}
			if got := c.grantedRecently(tt.ask, at.Add(tt.after)); got != tt.wantGrantedLately {
				t.Errorf("grantedRecently(%s) = %v, want %v", tt.ask, got, tt.wantGrantedLately)
			}
		})
	}
}

func TestPermissionsAnswer(t *testing.T) {
	patch := Permission{Verb: "patch", Resource: schema.GroupResource{Resource: "configmaps"}, Namespace: "a"}
	c := NewPermissions(time.Minute)
	asked := 0
	check := func() (bool, error) { asked++; return true, nil }
	for range 3 {
		if allowed, err := c.answer(patch, check); err != nil || !allowed {
			t.Fatalf("answer = %v, %v", allowed, err)
		}
	}
	if asked != 1 {
		t.Errorf("asked %d times within the answer's lifetime, want once", asked)
	}

	// RBAC changes while a check is in flight: its answer may predate the
	// change, so it answers the one who asked and is not kept.
	c.Forget()
	racing := func() (bool, error) { asked++; c.Forget(); return true, nil }
	if allowed, err := c.answer(patch, racing); err != nil || !allowed {
		t.Fatalf("answer = %v, %v", allowed, err)
	}
	if _, cached := c.cached(patch, time.Now()); cached {
		t.Error("an answer asked for before a Forget was kept")
	}
	if c.grantedRecently(patch, time.Now()) {
		t.Error("an answer asked for before a Forget backs a retry")
	}
	if _, err := c.answer(patch, func() (bool, error) { return false, errors.New("no API server") }); err == nil {
		t.Error("a failed check answered")
	}
	if _, cached := c.cached(patch, time.Now()); cached {
		t.Error("a failed check was kept")
	}
}

var _ = Describe("Engines sharing one identity's permission answers", func() {
	var (
		ns, user string
		reviews  atomic.Int32
		rules    atomic.Int32
	)
	BeforeEach(func(ctx context.Context) {
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "shared-answers-"}}
		Expect(k8sClient.Create(ctx, namespace)).To(Succeed())
		ns, user = namespace.Name, "system:serviceaccount:"+namespace.Name+":deployer"
		Expect(k8sClient.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "configmaps"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"*"}}}})).To(Succeed())
		Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "configmaps"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "configmaps"},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "deployer", Namespace: ns}}})).To(Succeed())
		// The API server's authorizer learns of a new binding from its informers, a moment later.
		Eventually(func(g Gomega) {
			review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user,
				ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "get", Resource: "configmaps", Namespace: ns}}}
			g.Expect(k8sClient.Create(ctx, review)).To(Succeed())
			g.Expect(review.Status.Allowed).To(BeTrue())
		}).Should(Succeed())
		reviews.Store(0)
		rules.Store(0)
	})
	engineWith := func(answers *Permissions) *Engine {
		cfg := rest.CopyConfig(env.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
		c, err := client.NewWithWatch(cfg, client.Options{Scheme: k8sClient.Scheme(), Mapper: k8sClient.RESTMapper()})
		Expect(err).NotTo(HaveOccurred())
		c = interceptor.NewClient(c, interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				switch obj.(type) {
				case *authorizationv1.SelfSubjectAccessReview:
					reviews.Add(1)
				case *authorizationv1.SelfSubjectRulesReview:
					rules.Add(1)
				}
				return c.Create(ctx, obj, opts...)
			},
		})
		return &Engine{Client: c, FieldManager: fieldManager, Permissions: answers}
	}
	apply := func(ctx context.Context, e *Engine, name string) error {
		inputs, err := Decode("test", fmt.Appendf(nil, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\ndata: {k: v}\n", name))
		Expect(err).NotTo(HaveOccurred())
		objs, _, err := Check(inputs, Target{Scope: applyset.Scope{Namespace: ns}, DefaultNamespace: ns, Mapper: k8sClient.RESTMapper()})
		Expect(err).NotTo(HaveOccurred())
		setID := applyset.ParentKey{GroupKind: schema.GroupKind{Group: "apply.applyset.dev", Kind: "ApplySet"}, Namespace: ns, Name: name}.ID()
		_, err = e.Apply(ctx, objs, ApplyOptions{SetID: setID})
		return err
	}

	It("ask once for all of them, one rules review of the namespace, and again once the answers are forgotten", func(ctx context.Context) {
		answers := NewPermissions(time.Minute)
		Expect(apply(ctx, engineWith(answers), "one")).To(Succeed())
		Expect(rules.Load()).To(BeEquivalentTo(1), "the rules in the set's namespace")
		Expect(reviews.Load()).To(BeZero(), "create and patch of ConfigMaps, which the rules grant")
		Expect(apply(ctx, engineWith(answers), "two")).To(Succeed())
		Expect(rules.Load()+reviews.Load()).To(BeEquivalentTo(1), "a second engine of the identity asked again")

		answers.Forget()
		Expect(apply(ctx, engineWith(answers), "three")).To(Succeed())
		Expect(rules.Load()).To(BeEquivalentTo(2))
		Expect(reviews.Load()).To(BeZero())
	})

	It("ask every time without a lifetime", func(ctx context.Context) {
		answers := NewPermissions(0)
		Expect(apply(ctx, engineWith(answers), "one")).To(Succeed())
		Expect(apply(ctx, engineWith(answers), "two")).To(Succeed())
		Expect(rules.Load()).To(BeEquivalentTo(2))
	})

	It("ask an access review of what the rules do not grant", func(ctx context.Context) {
		answers := NewPermissions(time.Minute)
		engine := engineWith(answers)
		secrets := Permission{Verb: "create", Resource: schema.GroupResource{Resource: "secrets"}, Namespace: ns}
		configMaps := Permission{Verb: "create", Resource: schema.GroupResource{Resource: "configmaps"}, Namespace: ns}
		namespaces := Permission{Verb: "get", Resource: schema.GroupResource{Resource: "namespaces"}}
		err := engine.checkAccess(ctx, []Permission{secrets, configMaps, namespaces})
		var denied *AccessError
		Expect(errors.As(err, &denied)).To(BeTrue(), "%v", err)
		Expect(denied.Missing).To(ConsistOf(namespaces, secrets))
		Expect(rules.Load()).To(BeEquivalentTo(1))
		Expect(reviews.Load()).To(BeEquivalentTo(2), "the Secrets the rules do not grant, and the cluster-scoped namespaces")
	})

	It("refuse, writing nothing, once a revocation is forgotten into them", func(ctx context.Context) {
		answers := NewPermissions(time.Minute)
		Expect(apply(ctx, engineWith(answers), "one")).To(Succeed())
		Expect(k8sClient.Delete(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "configmaps"}})).To(Succeed())
		Eventually(func(g Gomega) {
			review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user,
				ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "create", Resource: "configmaps", Namespace: ns}}}
			g.Expect(k8sClient.Create(ctx, review)).To(Succeed())
			g.Expect(review.Status.Allowed).To(BeFalse())
		}).Should(Succeed())
		answers.Forget() // what the operator does on any RBAC change

		var denied *AccessError
		Expect(apply(ctx, engineWith(answers), "two")).To(BeAssignableToTypeOf(denied))
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "two"}, &corev1.ConfigMap{})).NotTo(Succeed())
	})
})

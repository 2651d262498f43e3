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

package applysets

import (
	"context"
	"fmt"
	"sync"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// The answers to a set's permission checks are shared by every set acting as
// the same identity: a thousand sets of one ServiceAccount ask once, not a
// thousand times. Any change to RBAC drops every answer.
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles;rolebindings;clusterroles;clusterrolebindings,verbs=list;watch

// DefaultPermissionTTL bounds how long an answer is reused. RBAC changes are
// seen at once; the bound is for authorizers whose changes the operator
// cannot watch (webhooks, Node), whose answers it therefore trusts this long.
const DefaultPermissionTTL = 10 * time.Second

// permissionAnswers holds one apply.Permissions per identity.
type permissionAnswers struct {
	ttl time.Duration
	// byUser maps an impersonated user, or "" for the operator, to its answers.
	byUser sync.Map
}

// of returns the answers of user, made on first use.
func (a *permissionAnswers) of(user string) *apply.Permissions {
	if p, ok := a.byUser.Load(user); ok {
		return p.(*apply.Permissions)
	}
	p, _ := a.byUser.LoadOrStore(user, apply.NewPermissions(a.ttl))
	return p.(*apply.Permissions)
}

// forgetAll drops every identity's answers.
func (a *permissionAnswers) forgetAll() {
	a.byUser.Range(func(_, p any) bool {
		p.(*apply.Permissions).Forget()
		return true
	})
}

// rbacKinds are the objects whose change may change any answer.
var rbacKinds = []string{"Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"}

// watchRBAC drops the answers whenever a Role, RoleBinding, ClusterRole or
// ClusterRoleBinding is created, changed or deleted. It watches their
// metadata only: which object changed does not matter, only that one did.
func (a *permissionAnswers) watchRBAC(mgr ctrl.Manager) error {
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		for _, kind := range rbacKinds {
			obj := &metav1.PartialObjectMetadata{}
			obj.SetGroupVersionKind(rbacv1.SchemeGroupVersion.WithKind(kind))
			informer, err := mgr.GetCache().GetInformer(ctx, obj)
			if err != nil {
				return fmt.Errorf("watching %s to drop stale permission answers: %w", kind, err)
			}
			if _, err := informer.AddEventHandler(a.rbacChanged()); err != nil {
				return fmt.Errorf("watching %s to drop stale permission answers: %w", kind, err)
			}
		}
		<-ctx.Done()
		return nil
	}))
}

// rbacChanged forgets on every real change. A relist after a lost watch
// repeats objects at the same resourceVersion; those change nothing.
func (a *permissionAnswers) rbacChanged() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { a.forgetAll() },
		UpdateFunc: func(before, after any) {
			if b, ok := before.(client.Object); ok {
				if n, ok := after.(client.Object); ok && b.GetResourceVersion() == n.GetResourceVersion() {
					return
				}
			}
			a.forgetAll()
		},
		DeleteFunc: func(any) { a.forgetAll() },
	}
}

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

package featuregates

import (
	"context"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/controlplane"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

// The probe behind Ready, made with no more rights than the shipped
// ClusterRole grants: it says a policy runs only once the API server runs
// that very revision with its binding, and it stores nothing.
var _ = Describe("Asking the API server whether it runs a policy", func() {
	It("is answered by the revision it asks for, once bound, and stores nothing", func(ctx context.Context) {
		cfg := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: "probes.probe.example.com"},
			Spec: featuresv1alpha1.CustomFeatureGatesSpec{FeatureGates: []featuresv1alpha1.FeatureGate{
				{Name: "A", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.a"}}}}}
		Expect(k8sClient.Create(ctx, cfg)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, cfg)).To(Succeed()) })
		compile := func(enabled bool) featuregate.Policies {
			set, err := featuregate.Compile([]featuregate.Gate{{Name: "A", PreRelease: featuregate.Alpha, Enabled: ptr.To(enabled), FieldPaths: []string{".spec.a"}}})
			Expect(err).NotTo(HaveOccurred())
			return set.Policies(featuregate.Target{CRD: cfg.Name, Group: "probe.example.com", Version: "v1", Plural: "probes"})
		}
		off, on := compile(false), compile(true)
		r := &Reconciler{Client: clientWithManagerRole(ctx)}
		loaded := func(p featuregate.Policies) func() (bool, error) {
			return func() (bool, error) { return r.policyLoaded(ctx, cfg, p) }
		}

		Expect(k8sClient.Create(ctx, off.Mutating)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, off.Mutating)).To(Succeed()) })
		Consistently(loaded(off)).WithTimeout(3*time.Second).Should(BeFalse(), "a policy without a binding runs for no request")

		Expect(k8sClient.Create(ctx, off.MutatingBinding)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, off.MutatingBinding)).To(Succeed()) })
		Eventually(loaded(off)).Should(BeTrue())
		Expect(loaded(on)()).To(BeFalse(), "a revision that was never written")

		By("rewriting the policy as another revision")
		policy := off.Mutating.DeepCopy()
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(policy), policy)).To(Succeed())
		policy.Spec = on.Mutating.Spec
		Expect(k8sClient.Update(ctx, policy)).To(Succeed())
		Eventually(loaded(on)).Should(BeTrue())
		Expect(loaded(off)()).To(BeFalse(), "the old revision no longer runs")

		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cfg), cfg)).To(Succeed())
		Expect(cfg.Annotations).NotTo(HaveKey(featuregate.ProbeAnnotation), "a probe was stored")
	})
})

// clientWithManagerRole is a client of a user bound to the ClusterRole the
// operator ships (config/rbac/role.yaml), and nothing else.
func clientWithManagerRole(ctx context.Context) client.Client {
	GinkgoHelper()
	root, err := controlplane.Root()
	Expect(err).NotTo(HaveOccurred())
	data, err := os.ReadFile(filepath.Join(root, "config", "rbac", "role.yaml"))
	Expect(err).NotTo(HaveOccurred())
	role := &rbacv1.ClusterRole{}
	Expect(yaml.Unmarshal(data, role)).To(Succeed())
	role.Name = "featuregates-test-manager-role"
	const user = "featuregates-test-manager"
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}}}
	for _, obj := range []client.Object{role, binding} {
		Expect(client.IgnoreAlreadyExists(k8sClient.Create(ctx, obj))).To(Succeed())
	}
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	Expect(err).NotTo(HaveOccurred())
	return c
}

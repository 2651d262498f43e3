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
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

var (
	env       *testenv.Env
	k8sClient client.Client
	stopMgr   func() error
)

func TestFeatureGates(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "CustomFeatureGates reconciler suite")
}

var _ = BeforeSuite(func(ctx context.Context) {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	SetDefaultEventuallyTimeout(30 * time.Second)
	var err error
	env, err = testenv.StartWithWebhooks(ctx, GinkgoT().TempDir(), []*admissionv1.MutatingWebhookConfiguration{cronTabWebhook()})
	Expect(err).NotTo(HaveOccurred())
	k8sClient = env.Client
	stopMgr, err = env.RunManager(func(mgr ctrl.Manager) error {
		if err := SetupWithManager(mgr); err != nil {
			return err
		}
		return SetupWebhookWithManager(mgr)
	})
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	if stopMgr != nil {
		Expect(stopMgr()).To(Succeed())
	}
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
})

// cronTabWebhook registers the dropping webhook for the seed's CronTab CRD, as
// the reconciler will: both the resource and its status, the storage version
// with matchPolicy Equivalent, no side effects.
func cronTabWebhook() *admissionv1.MutatingWebhookConfiguration {
	return &admissionv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "applyset-operator-featuregates"},
		Webhooks: []admissionv1.MutatingWebhook{{
			Name: "crontabs.stable.example.com.featuregates.applyset.dev",
			ClientConfig: admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{
				Namespace: "system", Name: "webhook-service", Path: ptr.To(WebhookPath)}},
			Rules: []admissionv1.RuleWithOperations{{
				Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
				Rule: admissionv1.Rule{APIGroups: []string{"stable.example.com"}, APIVersions: []string{"v1"},
					Resources: []string{"crontabs", "crontabs/status"}},
			}},
			FailurePolicy:           ptr.To(admissionv1.Fail),
			SideEffects:             ptr.To(admissionv1.SideEffectClassNone),
			MatchPolicy:             ptr.To(admissionv1.Equivalent),
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To(int32(5)),
		}},
	}
}

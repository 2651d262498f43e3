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

// Package validation checks every declarative rule of the operator's API against
// a real API server: for each rule an object it accepts and one it rejects, with
// the field path, reason and message a person sees.
package validation

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/controlplane"
)

var (
	k8sClient client.Client
	cp        *controlplane.ControlPlane
)

// The namespaces the cases use: an ApplySet lives in home and may list other.
const (
	home  = "team-a"
	other = "team-b"
)

func TestValidation(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Declarative validation suite")
}

var _ = BeforeSuite(func(ctx context.Context) {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))

	var err error
	cp, err = controlplane.Start(ctx)
	Expect(err).NotTo(HaveOccurred())

	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(apiextensionsv1.AddToScheme(scheme)).To(Succeed())
	Expect(applyv1alpha1.AddToScheme(scheme)).To(Succeed())
	Expect(featuresv1alpha1.AddToScheme(scheme)).To(Succeed())
	k8sClient, err = client.New(cp.Config, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())

	for _, ns := range []string{home, other} {
		Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	}
})

var _ = AfterSuite(func() {
	if cp != nil {
		Expect(cp.Stop()).To(Succeed())
	}
})

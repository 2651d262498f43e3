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
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/controllers/featuregates"
	"github.com/applyset-operator/applyset-operator/internal/identity"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// logs holds what the suite's managers log.
var logs *testenv.SyncBuffer

func TestManager(t *testing.T) {
	RegisterFailHandler(Fail)
	logs = testenv.CaptureLogs()
	RunSpecs(t, "manager suite")
}

// The in-cluster setup, short of a kubelet: the test copies the certificate
// Secret into the cert directory as a Secret volume would.
var _ = Describe("webhooks with certificate rotation", func() {
	It("issues a certificate, keeps caBundle current beside the registered entries, and serves once the files exist", func(ctx context.Context) {
		env := testenv.StartForSpecs(ctx)
		c := env.Client
		logged := len(logs.String())

		const ns = "applyset-operator-system"
		// The control plane has the install's namespace already.
		Expect(client.IgnoreAlreadyExists(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))).To(Succeed())
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "applyset-operator-webhook-server-cert"}}
		Expect(c.Create(ctx, secret)).To(Succeed())

		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		port := l.Addr().(*net.TCPAddr).Port
		Expect(l.Close()).To(Succeed())
		certDir := GinkgoT().TempDir()
		opts := webhookOptions{
			port: port, certDir: certDir, configuration: featuregates.DefaultConfigurationName,
			service: ns + "/applyset-operator-webhook-service", certRotation: true, certSecret: secret.Name,
		}
		env.StartManager(func(mgr ctrl.Manager) error { return setupWebhooks(mgr, opts, featuregates.BackendWebhook, nil) })

		crd := testenv.OpenCRD("example.com", "Gadget")
		Expect(c.Create(ctx, crd)).To(Succeed())
		gates := &featuresv1alpha1.CustomFeatureGates{ObjectMeta: metav1.ObjectMeta{Name: crd.Name}}
		gates.Spec.FeatureGates = []featuresv1alpha1.FeatureGate{{Name: "Size", PreRelease: featuresv1alpha1.Alpha, FieldPaths: []string{".spec.size"}}}
		Expect(c.Create(ctx, gates)).To(Succeed())

		By("the rotation filling the Secret, and the registrar the entry with its caBundle")
		Eventually(func(g Gomega) {
			g.Expect(c.Get(ctx, client.ObjectKeyFromObject(secret), secret)).To(Succeed())
			g.Expect(secret.Data).To(HaveKey("ca.crt"))
			config := &admissionv1.MutatingWebhookConfiguration{}
			g.Expect(c.Get(ctx, client.ObjectKey{Name: opts.configuration}, config)).To(Succeed())
			g.Expect(config.Webhooks).To(ConsistOf(SatisfyAll(
				HaveField("Name", crd.Name),
				HaveField("ClientConfig.Service.Name", "applyset-operator-webhook-service"),
				HaveField("ClientConfig.CABundle", Equal(secret.Data["ca.crt"])),
			)))
		}).Should(Succeed())

		By("one writer of each: the rotation of the Secret, the registrar of the configuration, caBundle included")
		Expect(secret.ManagedFields).To(ContainElement(HaveField("Manager", identity.CertsFieldManager)))
		config := &admissionv1.MutatingWebhookConfiguration{}
		Expect(c.Get(ctx, client.ObjectKey{Name: opts.configuration}, config)).To(Succeed())
		Expect(config.ManagedFields).To(ContainElement(SatisfyAll(HaveField("Manager", identity.WebhooksFieldManager),
			HaveField("Operation", metav1.ManagedFieldsOperationApply), HaveField("FieldsV1.Raw", ContainSubstring(`"f:caBundle"`)))))
		Expect(config.ManagedFields).NotTo(ContainElement(HaveField("Manager", identity.CertsFieldManager)), "a second writer of the configuration")
		Consistently(func() string {
			latest := &admissionv1.MutatingWebhookConfiguration{}
			Expect(c.Get(ctx, client.ObjectKey{Name: opts.configuration}, latest)).To(Succeed())
			return latest.ResourceVersion
		}).WithTimeout(3 * time.Second).Should(Equal(config.ResourceVersion))

		By("serving, once the certificate files are in place, a certificate the caBundle verifies")
		for _, name := range []string{"ca.crt", "tls.crt", "tls.key"} {
			Expect(os.WriteFile(filepath.Join(certDir, name), secret.Data[name], 0o600)).To(Succeed())
		}
		roots := x509.NewCertPool()
		Expect(roots.AppendCertsFromPEM(secret.Data["ca.crt"])).To(BeTrue())
		Eventually(func() error {
			conn, err := tls.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), &tls.Config{
				RootCAs: roots, ServerName: "applyset-operator-webhook-service." + ns + ".svc", MinVersion: tls.VersionTLS12,
			})
			if err != nil {
				return err
			}
			return conn.Close()
		}).WithTimeout(time.Minute).Should(Succeed())

		By("a fresh install logging no error at all")
		Expect(errorLines(logs.String()[logged:])).To(BeEmpty())
	})
})

// errorLines are the lines of log at level ERROR.
func errorLines(log string) []string {
	var lines []string
	for line := range strings.Lines(log) {
		if fields := strings.Split(line, "\t"); len(fields) > 1 && fields[1] == "ERROR" {
			lines = append(lines, line)
		}
	}
	return lines
}

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
	"bytes"
	"compress/gzip"
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

func gzipBytes(data []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(data)
	Expect(err).NotTo(HaveOccurred())
	Expect(zw.Close()).To(Succeed())
	return buf.Bytes()
}

var _ = Describe("ApplySet sources", func() {
	It("reads gzip from ConfigMaps and Secrets, and takes what kubectl takes with a warning", func(ctx context.Context) {
		ns := bareNamespace(ctx)
		serviceAccount(ctx, ns, "installer", rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"}, true)
		role := "pod-reader-" + ns
		manifests := fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: %s, namespace: kube-system}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: zipped}
data: {k: v}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: zipped}
data: {k: v}
`, role)
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "install"},
			BinaryData: map[string][]byte{"install.yaml.gz": gzipBytes([]byte(manifests))}})).To(Succeed())
		Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "secret-part"},
			Data: map[string][]byte{"part.yaml": gzipBytes([]byte("{apiVersion: v1, kind: ConfigMap, metadata: {name: from-secret}}"))}})).To(Succeed())
		set := newSet(ns, "zipped")
		set.Spec.ServiceAccountName = "installer"
		set.Spec.Sources = []applyv1alpha1.Source{
			{Kind: applyv1alpha1.SourceKindConfigMap, Name: "install"},
			{Kind: applyv1alpha1.SourceKindSecret, Name: "secret-part"},
		}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)

		Expect(memberNames(set.Status.Members)).To(ConsistOf("ClusterRole "+role, "ConfigMap zipped", "ConfigMap from-secret"))
		origin := "ConfigMap " + ns + "/install key install.yaml.gz"
		Expect(set.Status.Warnings).To(Equal([]string{
			origin + " document 1: ClusterRole " + role + " is cluster-scoped; its metadata.namespace kube-system is ignored",
			origin + " document 3: ConfigMap " + ns + "/zipped repeats " + origin + " document 2 exactly; the copy is ignored",
		}))
		Eventually(testenv.EventReasons(ctx, k8sClient, ns, "zipped")).Should(ContainElement("Warning/" + ReasonInputWarning))
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: role}, &rbacv1.ClusterRole{})).To(Succeed())
	})

	It("stops a gzip bomb at the size limit, naming the source and the limit", func(ctx context.Context) {
		ns := newNamespace(ctx)
		// 64 MiB of spaces, a valid empty YAML document, compress to 64 KiB.
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bomb"},
			BinaryData: map[string][]byte{"all.yaml": gzipBytes(bytes.Repeat([]byte(" "), 64<<20))}})).To(Succeed())
		set := newSet(ns, "bombed")
		set.Spec.Sources = []applyv1alpha1.Source{{Kind: applyv1alpha1.SourceKindConfigMap, Name: "bomb"}}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionStalled)).Should(SatisfyAll(
			HaveField("Status", metav1.ConditionTrue), HaveField("Reason", applyv1alpha1.ReasonInvalidInput),
			HaveField("Message", ContainSubstring("ConfigMap "+ns+"/bomb key all.yaml: the set's sources, read up to here, "+
				"hold more than the limit of 16Mi, decompressed"))))
	})
})

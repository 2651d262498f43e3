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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/opencontainers/go-digest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

var _ = Describe("Flux sources of one tenant", func() {
	It("never reads another namespace's artifact, nor tells its digest", func(ctx context.Context) {
		ns, other, sc := newNamespace(ctx), newNamespace(ctx), newSourceController()
		// Another team's artifact, on the same source-controller.
		theirs, theirSum := sc.publish("GitRepository", other, "app", map[string]string{"app.yaml": configMapYAML("stolen")})
		Expect(theirs).To(ContainSubstring("/gitrepository/" + other + "/app/"))

		By("a tenant pointing their GitRepository's status at it, with a guessed digest")
		repo := fluxObject(ctx, ns, "GitRepository", "app")
		setArtifact(ctx, repo, theirs, digest.FromString("a guess").String(), "main@sha1:1111111")
		set := fluxSet(ns, "thief", applyv1alpha1.FluxSourceGitRepository, "app", "")
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		refused := And(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", applyv1alpha1.ReasonArtifactUnavailable),
			HaveField("Message", And(ContainSubstring("GitRepository "+ns+"/app names an artifact the operator may not fetch"),
				ContainSubstring("not under its object's own path"), ContainSubstring("/gitrepository/"+ns+"/app/<file>"),
				Not(ContainSubstring(strings.TrimPrefix(theirSum, "sha256:")[:16])))))
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(refused)

		By("and with the digest of their bytes, had it leaked")
		setArtifact(ctx, repo, theirs, theirSum, "main@sha1:2222222")
		// The set is looked at every second: three seconds see it read the new status.
		Consistently(func(g Gomega) {
			g.Expect(configMapExists(ctx, ns, "stolen")).To(BeFalse(), "another namespace's artifact was applied")
			g.Expect(condition(ctx, set, applyv1alpha1.ConditionReady)()).To(refused)
		}, 3*time.Second).Should(Succeed())
		Expect(sc.hits.Load()).To(BeZero(), "another namespace's artifact was fetched")
	})

	It("reads an ExternalArtifact stored another way only from a host the admin frees", func(ctx context.Context) {
		ns, sc := newNamespace(ctx), newSourceController()
		// A producer that serves its artifacts at paths of its own choosing.
		url, sum := sc.publish("Rendering", "renderer", "output", map[string]string{"app.yaml": configMapYAML("rendered")})
		setArtifact(ctx, fluxObject(ctx, ns, "ExternalArtifact", "rendered"), url, sum, "v1")
		set := fluxSet(ns, "producer", applyv1alpha1.FluxSourceExternalArtifact, "rendered", "")
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		Eventually(condition(ctx, set, applyv1alpha1.ConditionReady)).Should(And(HaveField("Status", metav1.ConditionFalse),
			HaveField("Reason", applyv1alpha1.ReasonArtifactUnavailable), HaveField("Message", And(
				ContainSubstring("ExternalArtifact "+ns+"/rendered names an artifact the operator may not fetch"),
				ContainSubstring("/externalartifact/"+ns+"/rendered/<file>"), ContainSubstring("--external-artifact-hosts")))))
		Expect(configMapExists(ctx, ns, "rendered")).To(BeFalse())
		Expect(sc.hits.Load()).To(BeZero(), "a path the rule refuses was fetched")
	})
})

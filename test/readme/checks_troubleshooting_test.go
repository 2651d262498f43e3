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

package readme

import (
	"context"
	"maps"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// The checks of docs/operations/troubleshooting.md.
func init() {
	maps.Copy(checks, map[string]func(ctx context.Context, out string){
		"trouble-access-denied": checkTroubleAccessDenied,
		"trouble-grant":         checkTroubleGrant,
		"trouble-label-only":    checkTroubleLabelOnly,
		"trouble-preview":       checkTroublePreview,
	})
}

// The set is AccessDenied, its message (printed) names the right its
// account lacks, and nothing was applied.
func checkTroubleAccessDenied(ctx context.Context, out string) {
	set := getSet(ctx, "trouble", "api")
	ready := readyCondition(set)
	Expect(ready.Status).To(BeEquivalentTo("False"))
	Expect(ready.Reason).To(Equal(applyv1alpha1.ReasonAccessDenied))
	Expect(ready.Message).To(ContainSubstring("configmaps"))
	Expect(out).To(ContainSubstring(ready.Message))
	err := kube.Get(ctx, key("trouble", "api-settings"), &corev1.ConfigMap{})
	Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a set denied its rights applied (%v)", err)
}

// Once granted, the account may, and the set went on by itself.
func checkTroubleGrant(ctx context.Context, out string) {
	Expect(out).To(MatchRegexp(`(?m)^yes$`))
	set := getSet(ctx, "trouble", "api")
	ready := readyCondition(set)
	Expect(ready.Status).To(BeEquivalentTo("True"))
	Expect(ready.Reason).To(Equal(applyv1alpha1.ReasonSucceeded))
	config := &corev1.ConfigMap{}
	Expect(kube.Get(ctx, key("trouble", "api-settings"), config)).To(Succeed())
	Expect(config.Labels).To(HaveKeyWithValue(partOfLabel, set.Status.ApplySetID))
}

// view tells the recorded member from the object labelled by hand, which
// is not in the set's record and keeps its label.
func checkTroubleLabelOnly(ctx context.Context, out string) {
	Expect(out).To(MatchRegexp(`(?m)^ConfigMap\s+trouble\s+api-extra\s.*label only`))
	Expect(out).To(MatchRegexp(`(?m)^ConfigMap\s+trouble\s+api-settings\s.*recorded`))
	set := getSet(ctx, "trouble", "api")
	Expect(set.Status.Members).To(ConsistOf(HaveField("Name", "api-settings")))
	extra := &corev1.ConfigMap{}
	Expect(kube.Get(ctx, key("trouble", "api-extra"), extra)).To(Succeed())
	Expect(extra.Labels).To(HaveKeyWithValue(partOfLabel, set.Status.ApplySetID))
}

// The preview shows the one change, exits 1 for it, and changes nothing.
func checkTroublePreview(ctx context.Context, out string) {
	Expect(out).To(ContainSubstring("-  mode: strict"))
	Expect(out).To(ContainSubstring("+  mode: lenient"))
	Expect(out).To(ContainSubstring("0 to create, 1 to change, 0 unchanged, 0 to prune"))
	Expect(out).To(ContainSubstring("diff exited 1: differences"))
	config := &corev1.ConfigMap{}
	Expect(kube.Get(ctx, key("trouble", "api-settings"), config)).To(Succeed())
	Expect(config.Data).To(HaveKeyWithValue("mode", "strict"))
}

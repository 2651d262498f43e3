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
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gstruct"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/windows"
)

// shiftedClock is the system's clock moved forward by what specs add, so
// that a spec can step past a window while everything else keeps time.
type shiftedClock struct{ offset atomic.Int64 }

func (c *shiftedClock) Now() time.Time                  { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *shiftedClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// specClock is the clock the suite's reconcilers judge windows by.
var specClock = &shiftedClock{}

// denyNow is a Deny window in Asia/Tokyo that opened a minute ago and
// stays open for d, and when it closes.
func denyNow(d time.Duration) (applyv1alpha1.Window, time.Time) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	Expect(err).NotTo(HaveOccurred())
	start := specClock.Now().In(tokyo).Add(-time.Minute).Truncate(time.Minute)
	return applyv1alpha1.Window{Kind: applyv1alpha1.WindowDeny, Schedule: fmt.Sprintf("%d %d * * *", start.Minute(), start.Hour()),
		Duration: &metav1.Duration{Duration: d}, TimeZone: "Asia/Tokyo"}, start.Add(d)
}

// alwaysDenied is a Deny window that never closes.
var alwaysDenied = applyv1alpha1.Window{Kind: applyv1alpha1.WindowDeny, Schedule: "* * * * *", Duration: &metav1.Duration{Duration: time.Hour}}

func outsideWindow(ctx context.Context, set *applyv1alpha1.ApplySet) {
	GinkgoHelper()
	Eventually(readyCondition(ctx, set)).Should(SatisfyAll(HaveField("Status", metav1.ConditionFalse),
		HaveField("Reason", applyv1alpha1.ReasonOutsideWindow), HaveField("ObservedGeneration", set.Generation)))
}

// heldPlan is the digest of the plan a held set would apply, which an
// override names.
func heldPlan(ctx context.Context, set *applyv1alpha1.ApplySet) string {
	GinkgoHelper()
	var digest string
	Eventually(func() string {
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		digest = ptr.Deref(set.Status.Plan, applyv1alpha1.Plan{}).Digest
		return digest
	}).ShouldNot(BeEmpty(), "a held set names no plan to override")
	return digest
}

// overrideWindow writes the override as kubectl annotate does: a patch of
// the annotation alone.
func overrideWindow(ctx context.Context, c client.Client, set *applyv1alpha1.ApplySet, digest string) error {
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, applyv1alpha1.WindowOverrideAnnotation, digest)
	return c.Patch(ctx, set.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(patch)))
}

var _ = Describe("Delivery windows", func() {
	It("holds a set created inside a deny window, saying until when, and applies it once the window closed", Serial, func(ctx context.Context) {
		ns := newNamespace(ctx)
		window, closes := denyNow(2 * time.Hour)
		set := newSet(ns, "frozen", inlineConfigMap("frozen", "1"))
		set.Spec.Windows = []applyv1alpha1.Window{window}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())

		outsideWindow(ctx, set)
		Expect(set.Status.Conditions).To(ContainElement(HaveField("Message", SatisfyAll(
			ContainSubstring(`Held by the Deny window "`+window.Schedule+`" for 2h0m0s (Asia/Tokyo)`),
			ContainSubstring("the next opening is "+closes.Format(time.RFC3339)),
			ContainSubstring(applyv1alpha1.WindowOverrideAnnotation+"=sha256:"),
		))))
		Expect(set.Status.Window).To(gstruct.PointTo(SatisfyAll(HaveField("Held", ptr.To(true)),
			HaveField("NextChange", HaveSuffix("+09:00")))))
		Consistently(func() bool { return configMapExists(ctx, ns, "frozen") }).WithTimeout(2 * time.Second).Should(BeFalse())

		By("moving the clock past the window's end")
		specClock.offset.Add(int64(2 * time.Hour))
		DeferCleanup(func() { specClock.offset.Store(0) })
		// The set's requeue is two hours of real time away: a change wakes it now.
		poke(ctx, set)
		readyFor(ctx, set)
		Expect(configMapExists(ctx, ns, "frozen")).To(BeTrue())
		Expect(set.Status.Window).To(gstruct.PointTo(HaveField("Held", ptr.To(false))))
	})

	It("never holds a deletion", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "leaving", inlineConfigMap("leaving", "1"))
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		readyFor(ctx, set)
		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) { set.Spec.Windows = []applyv1alpha1.Window{alwaysDenied} })
		outsideWindow(ctx, set)

		Expect(k8sClient.Delete(ctx, set)).To(Succeed())
		Eventually(exists(ctx, set)).Should(BeFalse())
		Expect(configMapExists(ctx, ns, "leaving")).To(BeFalse(), "a member of a set deleted inside a deny window stayed")
	})

	It("lets one apply of the plan it names through when an approver overrides the window", func(ctx context.Context) {
		ns := newNamespace(ctx)
		set := newSet(ns, "urgent", inlineConfigMap("urgent", "1"))
		set.Spec.Windows = []applyv1alpha1.Window{alwaysDenied}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		outsideWindow(ctx, set)
		digest := heldPlan(ctx, set)
		Expect(readyCondition(ctx, set)()).To(HaveField("Message", ContainSubstring(applyv1alpha1.WindowOverrideAnnotation+"="+digest)))
		author, approver := userIn(ctx, ns, "author", "update"), userIn(ctx, ns, "approver", "update", "approve")

		Expect(overrideWindow(ctx, author, set, digest)).To(MatchError(ContainSubstring("may not approve applysets")), "an author overrode a window")
		Expect(configMapExists(ctx, ns, "urgent")).To(BeFalse())
		Expect(overrideWindow(ctx, approver, set, digest)).To(Succeed())
		Eventually(func() bool { return configMapExists(ctx, ns, "urgent") }).Should(BeTrue(), func() string {
			return fmt.Sprintf("%+v", readyCondition(ctx, set)())
		})
		Eventually(func() string {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
			return ptr.Deref(set.Status.Window, applyv1alpha1.WindowStatus{}).OverriddenPlan
		}).Should(Equal(digest))

		By("holding the next plan again")
		updateSet(ctx, set, func(set *applyv1alpha1.ApplySet) {
			set.Spec.Resources = []applyv1alpha1.Resource{inlineConfigMap("urgent", "2")}
		})
		outsideWindow(ctx, set)
		Expect(heldPlan(ctx, set)).NotTo(Equal(digest))
		cm := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "urgent"}, cm)).To(Succeed())
		Expect(cm.Data).To(HaveKeyWithValue("k", "1"), "a held set applied a plan nobody let through")
	})

	It("lets nothing through for an override of a plan its source has changed since", func(ctx context.Context) {
		ns := newNamespace(ctx)
		source := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "declared"},
			Data: map[string]string{"all.yaml": "{apiVersion: v1, kind: ConfigMap, metadata: {name: shipped}, data: {k: '1'}}"}}
		Expect(k8sClient.Create(ctx, source)).To(Succeed())
		set := newSet(ns, "from-source")
		set.Spec.Sources = []applyv1alpha1.Source{{Kind: applyv1alpha1.SourceKindConfigMap, Name: "declared"}}
		set.Spec.Windows = []applyv1alpha1.Window{alwaysDenied}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		outsideWindow(ctx, set)
		reviewed := heldPlan(ctx, set)

		By("changing what the source declares after the plan was reviewed: the set's generation stays")
		source.Data["all.yaml"] = "{apiVersion: v1, kind: ConfigMap, metadata: {name: shipped}, data: {k: unreviewed}}"
		Expect(k8sClient.Update(ctx, source)).To(Succeed())
		Eventually(func() string { return heldPlan(ctx, set) }).ShouldNot(Equal(reviewed))
		approver := userIn(ctx, ns, "approver", "update", "approve")
		Expect(overrideWindow(ctx, approver, set, reviewed)).To(Succeed())
		Consistently(func() bool { return configMapExists(ctx, ns, "shipped") }).WithTimeout(3*time.Second).Should(BeFalse(),
			"an override let through a plan other than the one it names")
		outsideWindow(ctx, set)
	})

	It("holds every set of a namespace whose annotation declares windows", func(ctx context.Context) {
		ns := newNamespace(ctx)
		namespace := &corev1.Namespace{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: ns}, namespace)).To(Succeed())
		namespace.Annotations = map[string]string{applyv1alpha1.WindowsAnnotation: `[{"kind":"Deny","schedule":"* * * * *","duration":"1h"}]`}
		Expect(k8sClient.Update(ctx, namespace)).To(Succeed())
		// The set's own Allow window does not widen its namespace's windows.
		set := newSet(ns, "tenant", inlineConfigMap("tenant", "1"))
		set.Spec.Windows = []applyv1alpha1.Window{{Kind: applyv1alpha1.WindowAllow, Schedule: "* * * * *", Duration: &metav1.Duration{Duration: time.Hour}}}
		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		outsideWindow(ctx, set)
		Expect(configMapExists(ctx, ns, "tenant")).To(BeFalse())
	})

	It("refuses a window with an unknown time zone or schedule at admission", func(ctx context.Context) {
		ns := newNamespace(ctx)
		for _, w := range []applyv1alpha1.Window{
			{Kind: applyv1alpha1.WindowDeny, Schedule: "0 22 * * 5", Duration: &metav1.Duration{Duration: time.Hour}, TimeZone: "Europe/Atlantis"},
			{Kind: applyv1alpha1.WindowDeny, Schedule: "0 25 * * 5", Duration: &metav1.Duration{Duration: time.Hour}},
		} {
			set := newSet(ns, "refused", inlineConfigMap("refused", "1"))
			set.Spec.Windows = []applyv1alpha1.Window{w}
			Eventually(func() error { return k8sClient.Create(ctx, set, client.DryRunAll) }).Should(SatisfyAll(
				MatchError(ContainSubstring("admission webhook")), MatchError(ContainSubstring("spec.windows: window 0: "))))
		}
	})
})

// A held set is looked at again just after its windows let it apply, not
// at each interval; with no opening in reach, at its interval.
func TestUntilWindowChange(t *testing.T) {
	now := time.Date(2026, 6, 12, 18, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		next       time.Time
		unsearched bool
		want       time.Duration
	}{
		{"an opening ahead", now.Add(62 * time.Hour), false, 62*time.Hour + time.Second},
		{"an opening passed while the reconcile ran", now.Add(-time.Second), false, time.Second},
		{"no opening in reach", time.Time{}, false, 10 * time.Minute},
		{"windows too costly to search for their opening: each look decides exactly", time.Time{}, true, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := outcome{now: now, window: &windowOutcome{held: true, decision: windows.Decision{Next: tc.next, Unsearched: tc.unsearched}}}
			if got := untilWindowChange(o, 10*time.Minute); got != tc.want {
				t.Fatalf("untilWindowChange = %s, want %s", got, tc.want)
			}
		})
	}
}

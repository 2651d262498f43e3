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

package reliability

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/inventory"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// Another writer annotates a set while the operator writes its chunks, as
// a tool that stamps its sets would while a large set's chunks take
// seconds to write. Each status write computed before that annotation is
// refused with a Conflict, though the record it guards did not move: the
// operator must then write the same status again, not a new layout of
// chunks, whose writes the writer would race again on every try.
var _ = Describe("A set annotated while its chunks are written", func() {
	It("records its members with each chunk written once", func(ctx context.Context) {
		ns := tenantNamespace(ctx)
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "stamped"}}
		set.Spec.Resources = numberedConfigMaps(0, 60)
		stamper := &stamper{set: client.ObjectKeyFromObject(set)}
		cfg := rest.CopyConfig(env.Config)
		cfg.Wrap(stamper.wrap)
		stop := runOperatorAs(cfg, inventory.Layout{Inline: 20, PerChunk: 8})
		DeferCleanup(func() { Expect(stop()).To(Succeed()) })

		Expect(k8sClient.Create(ctx, set)).To(Succeed())
		recordsLive(ctx, set, 60)
		Expect(stamper.stamps.Load()).To(BeNumerically(">", 0), "no chunk write was stamped: the spec proves nothing")
		Expect(stamper.chunkWrites.Load()).To(BeEquivalentTo(len(set.Status.Inventory.Chunks)),
			"a chunk was written more than once: a conflict the annotation caused rewrote the layout")

		By("replacing a third of the members, under the same writer")
		written := stamper.chunkWrites.Load()
		Expect(updateResources(ctx, set, numberedConfigMaps(20, 80))).To(Succeed())
		recordsLive(ctx, set, 60)
		Expect(stamper.chunkWrites.Load()-written).To(BeNumerically("<=", len(set.Status.Inventory.Chunks)),
			"a chunk was written more than once: a conflict the annotation caused rewrote the layout")
		Expect(testenv.EventReasons(ctx, k8sClient, ns, set.Name)()).NotTo(ContainElement(ContainSubstring(applyv1alpha1.ReasonRecordConflict)))
	})
})

// recordsLive waits until set is Ready on its generation with a record
// naming exactly its n live ConfigMaps, by UID.
func recordsLive(ctx context.Context, set *applyv1alpha1.ApplySet, n int) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		g.Expect(ready(ctx, set)()).To(BeTrue(), "not Ready on generation %d", set.Generation)
		recorded, err := recordedUIDs(ctx, set)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(recorded).To(HaveLen(n))
		g.Expect(recorded).To(Equal(configMapUIDs(ctx, set.Namespace)))
	}).WithTimeout(time.Minute).Should(Succeed(), "the set never recorded its %d members", n)
}

// stamper annotates its set, as another writer, before each write of one
// of the set's chunks goes on to the API server, and counts both.
type stamper struct {
	set                 client.ObjectKey
	stamps, chunkWrites atomic.Int64
}

// wrap puts the stamper in front of rt: one round tripper for each of the
// transports a config makes.
func (s *stamper) wrap(rt http.RoundTripper) http.RoundTripper {
	chunks := fmt.Sprintf("/apis/%s/namespaces/%s/applysetinventories/", applyv1alpha1.GroupVersion, s.set.Namespace)
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		if req.Method != http.MethodPatch || !strings.HasPrefix(req.URL.Path, chunks) {
			return rt.RoundTrip(req)
		}
		s.chunkWrites.Add(1)
		stamp := fmt.Sprintf(`{"metadata":{"annotations":{"example.com/stamp":"%d"}}}`, s.stamps.Add(1))
		set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: s.set.Namespace, Name: s.set.Name}}
		if err := k8sClient.Patch(req.Context(), set, client.RawPatch(types.MergePatchType, []byte(stamp))); err != nil {
			return nil, fmt.Errorf("stamping the set before a chunk write: %w", err)
		}
		return rt.RoundTrip(req)
	})
}

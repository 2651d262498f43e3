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

package declared

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
	"github.com/applyset-operator/applyset-operator/internal/ociartifact"
)

// argoCDOverlay is the corpus's Argo CD install (60 objects, 2.1 MB) as the
// base of a kustomize overlay: a namespace, a label on everything and a
// strategic-merge patch.
func argoCDOverlay(b *testing.B) map[string][]byte {
	b.Helper()
	gz, err := os.ReadFile("../../test/corpus/testdata/argo-cd.yaml.gz")
	if err != nil {
		b.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		b.Fatal(err)
	}
	install, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	return map[string][]byte{
		"base/install.yaml":       install,
		"base/kustomization.yaml": []byte("resources: [install.yaml]\n"),
		"overlays/prod/kustomization.yaml": []byte("resources: [../../base]\nnamespace: argocd-prod\n" +
			"labels: [{pairs: {env: prod}}]\npatches: [{path: server.yaml}]\n"),
		"overlays/prod/server.yaml": []byte("{apiVersion: apps/v1, kind: Deployment, metadata: {name: argocd-server}, spec: {replicas: 2}}\n"),
	}
}

// BenchmarkFetchArgoCDOverlay reads an oci source as a reconcile does: the
// tag resolved on a registry on loopback, the manifest and layer fetched,
// the tarball extracted within bounds, the overlay walked and built with
// kustomize, the output decoded into objects. "plain" reads the same
// install as a plain file, no kustomization, to tell kustomize's share.
func BenchmarkFetchArgoCDOverlay(b *testing.B) {
	overlay := argoCDOverlay(b)
	b.Run("overlay", func(b *testing.B) { benchmarkFetch(b, overlay, "overlays/prod") })
	b.Run("plain", func(b *testing.B) {
		benchmarkFetch(b, map[string][]byte{"plain/install.yaml": overlay["base/install.yaml"]}, "plain")
	})
}

func benchmarkFetch(b *testing.B, content map[string][]byte, path string) {
	ctx := context.Background()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	b.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	policy, err := fetchpolicy.Parse([]string{"http://" + host})
	if err != nil {
		b.Fatal(err)
	}
	files, err := artifact.NewTree(content)
	if err != nil {
		b.Fatal(err)
	}
	var layer bytes.Buffer
	if err := files.WriteTarGzip(&layer); err != nil {
		b.Fatal(err)
	}
	url := ociartifact.Scheme + host + "/argo-cd"
	if _, err := ociartifact.Push(ctx, files, url, "v1", ociartifact.Metadata{Created: time.Unix(0, 0)},
		ociartifact.Options{Policy: policy, Insecure: true}); err != nil {
		b.Fatal(err)
	}
	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: "argocd-prod", Name: "argo-cd"}}
	set.Spec.Sources = []applyv1alpha1.Source{{OCI: &applyv1alpha1.OCISource{URL: url, Tag: "v1", Insecure: ptr.To(true)}, Path: path}}
	reader := fake.NewClientBuilder().Build()
	artifacts := &Artifacts{Policy: policy}

	objects := 0
	runtime.GC()
	peak := sampleHeap()
	b.ReportAllocs()
	for b.Loop() {
		g, err := GatherWith(ctx, reader, set, DefaultLimits, artifacts)
		if err != nil {
			b.Fatal(err)
		}
		objects = len(g.Inputs)
	}
	b.ReportMetric(float64(peak()), "peak-heap-bytes")
	b.ReportMetric(float64(layer.Len()), "layer-bytes")
	b.ReportMetric(float64(files.Size()), "file-bytes")
	b.ReportMetric(float64(objects), "objects")
}

// sampleHeap samples the heap's objects, live and not yet collected, every
// millisecond, until the returned function stops it and gives the most seen.
func sampleHeap() func() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		var most uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			most = max(most, sample[0].Value.Uint64())
			select {
			case <-stop:
				done <- most
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(stop)
		return <-done
	}
}

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
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
	"github.com/applyset-operator/applyset-operator/internal/fluxsource"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// fluxReader is a client that knows GitRepositories and holds objs.
func fluxReader(funcs *interceptor.Funcs, objs ...client.Object) client.Client {
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(fluxsource.GroupVersion.WithKind("GitRepository"), meta.RESTScopeNamespace)
	mapper.Add(fluxsource.GroupVersion.WithKind("ExternalArtifact"), meta.RESTScopeNamespace)
	c := fake.NewClientBuilder().WithRESTMapper(mapper).WithObjects(objs...).Build()
	if funcs != nil {
		return interceptor.NewClient(c, *funcs)
	}
	return c
}

func gitRepository(url, sum string) *unstructured.Unstructured {
	return fluxObject("GitRepository", url, sum)
}

// fluxObject is shop/app of kind, whose status names url and sum.
func fluxObject(kind, url, sum string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"namespace": "shop", "name": "app"}}}
	obj.SetGroupVersionKind(fluxsource.GroupVersion.WithKind(kind))
	if url != "" {
		obj.Object["status"] = map[string]any{"artifact": map[string]any{"url": url, "digest": sum, "revision": "main@sha1:1"}}
	}
	return obj
}

func fluxApplySet(kind applyv1alpha1.FluxSourceKind) *applyv1alpha1.ApplySet {
	set := &applyv1alpha1.ApplySet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "set"}}
	set.Spec.Sources = []applyv1alpha1.Source{{Flux: &applyv1alpha1.FluxSource{Kind: kind, Name: "app"}, Path: "deploy"}}
	return set
}

func TestGatherReadsAFluxSourcesArtifact(t *testing.T) {
	tree, err := artifact.NewTree(map[string][]byte{"deploy/a.yaml": []byte(documents(2)), "other/b.yaml": []byte(documents(1))})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tree.WriteTarGzip(&buf); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(buf.Bytes()) }))
	defer srv.Close()
	policy, err := fetchpolicy.Parse([]string{"http://127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	sum := digest.FromBytes(buf.Bytes()).String()
	got, err := GatherWith(context.Background(), fluxReader(nil, gitRepository(srv.URL+"/gitrepository/shop/app/a.tar.gz", sum)),
		fluxApplySet(applyv1alpha1.FluxSourceGitRepository), DefaultLimits, &Artifacts{Policy: policy})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Inputs) != 2 || !strings.HasPrefix(got.Inputs[0].Origin, "spec.sources[0] GitRepository shop/app deploy/a.yaml") {
		t.Errorf("inputs: %+v", got.Inputs)
	}
	if got.Digests[0] != sum || got.Revisions[0] != "main@sha1:1" {
		t.Errorf("digests %q, revisions %q", got.Digests, got.Revisions)
	}
}

func TestGatherSaysWhyAFluxObjectCannotBeRead(t *testing.T) {
	forbidden := &interceptor.Funcs{Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
		return apierrors.NewForbidden(schema.GroupResource{Group: "source.toolkit.fluxcd.io", Resource: "gitrepositories"}, "app", errors.New("no"))
	}}
	unserved := &interceptor.Funcs{Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
		return &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "source.toolkit.fluxcd.io", Kind: "ExternalArtifact"}, SearchedVersions: []string{"v1"}}
	}}
	for _, tc := range []struct {
		name   string
		reader client.Client
		kind   applyv1alpha1.FluxSourceKind
		want   string
		is     error
	}{
		{name: "it does not exist", reader: fluxReader(nil), kind: applyv1alpha1.FluxSourceGitRepository,
			want: "GitRepository shop/app does not exist", is: ErrSourceNotFound},
		{name: "the cluster does not serve its kind", reader: fluxReader(unserved), kind: applyv1alpha1.FluxSourceExternalArtifact,
			want: "the cluster serves no ExternalArtifact of source.toolkit.fluxcd.io/v1; install Flux's source-controller", is: ErrSourceNotFound},
		{name: "the identity may not get it", reader: fluxReader(forbidden), kind: applyv1alpha1.FluxSourceGitRepository,
			want: "may not get gitrepositories.source.toolkit.fluxcd.io in namespace shop"},
		{name: "it has no artifact yet", reader: fluxReader(nil, gitRepository("", "")), kind: applyv1alpha1.FluxSourceGitRepository,
			want: "GitRepository shop/app has no artifact yet", is: ErrArtifactUnavailable},
		{name: "its url is a host the policy leaves out", reader: fluxReader(nil, gitRepository("http://169.254.169.254/a.tar.gz", "sha256:00")),
			kind: applyv1alpha1.FluxSourceGitRepository, want: "names an artifact the operator may not fetch", is: ErrArtifactUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			policy, err := fetchpolicy.Parse([]string{"*.example.com"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = GatherWith(context.Background(), tc.reader, fluxApplySet(tc.kind), DefaultLimits, &Artifacts{Policy: policy})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v does not say %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q is not %v", err, tc.is)
			}
			var denied *apply.AccessError
			if strings.Contains(tc.want, "may not get") && !errors.As(err, &denied) {
				t.Errorf("error %q is no access error", err)
			}
		})
	}
}

// TestGatherSaysWhyAnUnrestrictedReaderCannotFetch: where every host is
// allowed, as for kubectl applyset diff, a refused url is the url's fault,
// and the message names neither the operator nor its flag.
func TestGatherSaysWhyAnUnrestrictedReaderCannotFetch(t *testing.T) {
	for _, url := range []string{"ftp://source-controller.flux-system/a.tar.gz", "http://user:pass@source-controller.flux-system/a.tar.gz"} {
		reader := fluxReader(nil, gitRepository(url, "sha256:00"))
		_, err := GatherWith(context.Background(), reader, fluxApplySet(applyv1alpha1.FluxSourceGitRepository), DefaultLimits,
			&Artifacts{Policy: fetchpolicy.Unrestricted()})
		if err == nil || !strings.Contains(err.Error(), "GitRepository shop/app names an artifact that cannot be fetched") {
			t.Fatalf("%s: error %v does not say why", url, err)
		}
		if strings.Contains(err.Error(), "operator") || strings.Contains(err.Error(), "--artifact-allowed-hosts") {
			t.Errorf("%s: error %q speaks of the operator", url, err)
		}
		if !errors.Is(err, ErrArtifactUnavailable) {
			t.Errorf("%s: error %q is not %v", url, err, ErrArtifactUnavailable)
		}
	}
}

// TestGatherFetchesAnExternalArtifactFromAnyPathOfAFlaggedHost: a producer
// that stores ExternalArtifacts its own way is read only from a host the
// admin names in --external-artifact-hosts.
func TestGatherFetchesAnExternalArtifactFromAnyPathOfAFlaggedHost(t *testing.T) {
	srv, sum, _, _ := otherTeam(t)
	reader := fluxReader(nil, fluxObject("ExternalArtifact", srv.URL+"/producer/shop-app.tgz", sum.String()))
	set := fluxApplySet(applyv1alpha1.FluxSourceExternalArtifact)
	artifacts := loopbackArtifacts(t)
	_, err := GatherWith(context.Background(), reader, set, DefaultLimits, artifacts)
	if !errors.Is(err, ErrArtifactUnavailable) || !strings.Contains(err.Error(), "the operator's --external-artifact-hosts flag") ||
		!strings.Contains(err.Error(), "/externalartifact/shop/app/") {
		t.Fatalf("without the flag: error %v does not say which flag lets the producer's host serve any path", err)
	}
	if artifacts.ExternalArtifactHosts, err = fetchpolicy.Parse([]string{"127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	got, err := GatherWith(context.Background(), reader, set, DefaultLimits, artifacts)
	if err != nil || len(got.Inputs) != 1 || got.Digests[0] != sum.String() {
		t.Fatalf("with the flag: %+v, %v", got.Inputs, err)
	}
}

// TestGatherAdvisesTheFetchersFlags: a preview's refusals speak of its own
// flags, not of the operator's.
func TestGatherAdvisesTheFetchersFlags(t *testing.T) {
	preview := Advice{Fetcher: "this preview", AllowHosts: "pass --artifact-allowed-hosts", AllowExternal: "pass --external-artifact-hosts"}
	policy, err := fetchpolicy.Parse([]string{"*.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		artifacts *Artifacts
		obj       *unstructured.Unstructured
		want      string
	}{
		{name: "no host allowed", artifacts: &Artifacts{Advice: preview}, obj: gitRepository("http://sc.example.com/gitrepository/shop/app/a", "sha256:00"),
			want: "this preview fetches from no host; pass --artifact-allowed-hosts"},
		{name: "a host left out", artifacts: &Artifacts{Policy: policy, Advice: preview}, obj: gitRepository("http://sc.example.org/gitrepository/shop/app/a", "sha256:00"),
			want: "names an artifact this preview may not fetch: http://sc.example.org/gitrepository/shop/app/a: host \"sc.example.org\" is not among the hosts sets may fetch from; pass --artifact-allowed-hosts"},
		{name: "an ExternalArtifact's path", artifacts: &Artifacts{Policy: policy, Advice: preview}, obj: fluxObject("ExternalArtifact", "https://sc.example.com/a", "sha256:00"),
			want: "names an artifact this preview may not fetch: https://sc.example.com/a: the url is not under its object's own path: " +
				"Flux serves ExternalArtifact shop/app's artifacts at /externalartifact/shop/app/<file>; pass --external-artifact-hosts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind := applyv1alpha1.FluxSourceKind(tc.obj.GetKind())
			_, err := GatherWith(context.Background(), fluxReader(nil, tc.obj), fluxApplySet(kind), DefaultLimits, tc.artifacts)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "operator") {
				t.Fatalf("error %v does not say %q", err, tc.want)
			}
		})
	}
}

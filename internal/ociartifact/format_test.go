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

package ociartifact

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

func TestPullOverTLSWithACustomCA(t *testing.T) {
	srv := httptest.NewTLSServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "https://")
	url := Scheme + host + "/app"
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	opts := Options{Policy: policy(t, host), CAPEM: ca}
	digest := push(t, files, url, "v1", Metadata{Created: created}, opts)

	pulled, err := Pull(context.Background(), url, Version{Tag: "v1"}, opts, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if pulled.Digest != digest {
		t.Errorf("pulled %s, pushed %s", pulled.Digest, digest)
	}

	untrusted := Options{Policy: policy(t, host)}
	_, err = Pull(context.Background(), url, Version{Tag: "v1"}, untrusted, testLimits)
	wantErr(t, err, "certificate")

	opts.CAPEM = []byte("not PEM")
	_, err = Pull(context.Background(), url, Version{Tag: "v1"}, opts, testLimits)
	wantErr(t, err, "the CA holds no PEM certificate")
}

// pushManifestOf pushes a manifest of the given layers, each a blob of the
// given media type and content, as other tools than Push could.
func pushManifestOf(t *testing.T, reg *testRegistry, tag, manifestType string, layers map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	repo, err := ParseURL(reg.url("app"))
	if err != nil {
		t.Fatal(err)
	}
	client, err := reg.options(t).repository(repo)
	if err != nil {
		t.Fatal(err)
	}
	config, configData, err := fluxConfig(created, digestOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := pushBlob(ctx, client, repo, config, configData); err != nil {
		t.Fatal(err)
	}
	manifest := ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: manifestType, Config: config}
	for mediaType, data := range layers {
		desc := ocispec.Descriptor{MediaType: mediaType, Digest: digestOf(data), Size: int64(len(data))}
		if err := pushBlob(ctx, client, repo, desc, data); err != nil {
			t.Fatal(err)
		}
		manifest.Layers = append(manifest.Layers, desc)
	}
	data, err := json.Marshal(manifest)
	if err != nil {
		t.Fatal(err)
	}
	desc := ocispec.Descriptor{MediaType: manifestType, Digest: digestOf(data), Size: int64(len(data))}
	if err := pushManifest(ctx, client, repo, desc, data, tag); err != nil {
		t.Fatal(err)
	}
}

func TestPullRefusesWhatIsNotAnArtifact(t *testing.T) {
	reg := newTestRegistry(t, nil)
	opts := reg.options(t)
	var tarball strings.Builder
	if err := tree(t, files).WriteTarGzip(&tarball); err != nil {
		t.Fatal(err)
	}
	layer := []byte(tarball.String())
	pushManifestOf(t, reg, "oci-layer", ocispec.MediaTypeImageManifest, map[string][]byte{ociLayerMediaType: layer})
	pushManifestOf(t, reg, "zstd", ocispec.MediaTypeImageManifest, map[string][]byte{"application/vnd.oci.image.layer.v1.tar+zstd": layer})
	pushManifestOf(t, reg, "two-layers", ocispec.MediaTypeImageManifest, map[string][]byte{ociLayerMediaType: layer, fluxContentMediaType: layer})
	pushManifestOf(t, reg, "docker", "application/vnd.docker.distribution.manifest.v2+json", map[string][]byte{ociLayerMediaType: layer})
	pushManifestOf(t, reg, "not-gzip", ocispec.MediaTypeImageManifest, map[string][]byte{fluxContentMediaType: []byte("plain text")})

	small := testLimits
	small.MaxLayerBytes = int64(len(layer)) - 1
	tiny := testLimits
	tiny.MaxManifestBytes = 100

	tests := []struct {
		tag    string
		limits PullLimits
		want   string
	}{
		{"oci-layer", testLimits, ""},
		{"oci-layer", small, "the layer's " + itoa(len(layer)) + " bytes are beyond the limit"},
		{"oci-layer", tiny, "bytes are beyond the limit of 100"},
		{"zstd", testLimits, `layer media type "application/vnd.oci.image.layer.v1.tar+zstd"`},
		{"two-layers", testLimits, "2 layers: an artifact has exactly one"},
		{"docker", testLimits, `media type "application/vnd.docker.distribution.manifest.v2+json": only OCI image manifests`},
		{"not-gzip", testLimits, "reading the gzip stream"},
	}
	for _, tt := range tests {
		t.Run(tt.tag+" "+tt.want, func(t *testing.T) {
			pulled, err := Pull(context.Background(), reg.url("app"), Version{Tag: tt.tag}, opts, tt.limits)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if pulled.Files.Len() != len(files) {
					t.Errorf("%d files, want %d", pulled.Files.Len(), len(files))
				}
				return
			}
			wantErr(t, err, tt.want, reg.url("app"))
		})
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestPushRefusesAHostNotAllowed(t *testing.T) {
	reg := newTestRegistry(t, nil)
	opts := Options{Policy: policy(t, "registry.example.com"), Insecure: true}
	_, err := Push(context.Background(), tree(t, files), reg.url("app"), "v1", Metadata{}, opts)
	wantErr(t, err, "is not among the hosts")
	if reg.hits.Load() != 0 {
		t.Errorf("%d requests reached the registry", reg.hits.Load())
	}
}

func TestPushWritesFluxsFormat(t *testing.T) {
	reg := newTestRegistry(t, nil)
	opts := reg.options(t)
	push(t, files, reg.url("app"), "v1", Metadata{Created: created}, opts)
	repo, err := ParseURL(reg.url("app"))
	if err != nil {
		t.Fatal(err)
	}
	client, err := opts.repository(repo)
	if err != nil {
		t.Fatal(err)
	}
	desc, err := client.Resolve(context.Background(), "v1")
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := fetchManifest(context.Background(), client, repo, desc, 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	if manifest.Config.MediaType != fluxConfigMediaType || len(manifest.Layers) != 1 || manifest.Layers[0].MediaType != fluxContentMediaType {
		t.Errorf("config %q, layers %v; want Flux's media types", manifest.Config.MediaType, manifest.Layers)
	}
}

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

package adopt

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// helmEncode writes a release as Helm's storage drivers do: JSON, gzipped,
// base64-encoded.
func helmEncode(t testing.TB, release any) []byte {
	t.Helper()
	data, err := json.Marshal(release)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return []byte(base64.StdEncoding.EncodeToString(buf.Bytes()))
}

const helmManifest = `---
# Source: web/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: web
---
# Source: web/templates/elsewhere.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: web
  namespace: other
---
# Source: web/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
`

func TestDecodeHelmRelease(t *testing.T) {
	release := map[string]any{"name": "web", "namespace": "shop", "version": 3, "info": map[string]any{"status": "deployed"},
		"manifest": helmManifest, "chart": map[string]any{"metadata": map[string]any{"name": "web"}}}
	plain, _ := json.Marshal(release)
	// A small bound, so that passing it costs little.
	defer func(limit int64) { helmReleaseLimit = limit }(helmReleaseLimit)
	helmReleaseLimit = 2 << 10
	bomb := strings.Repeat("a", 4<<10)
	for name, tc := range map[string]struct {
		value   []byte
		wantErr string
	}{
		"gzipped, as Helm writes it":     {value: helmEncode(t, release)},
		"uncompressed, as Helm reads it": {value: []byte(base64.StdEncoding.EncodeToString(plain))},
		"not base64":                     {value: []byte("{not base64}"), wantErr: "not base64"},
		"not gzip or JSON":               {value: []byte(base64.StdEncoding.EncodeToString([]byte("\x1f\x8bjunk"))), wantErr: "gzip"},
		"no release":                     {value: []byte(base64.StdEncoding.EncodeToString([]byte(`{"kind":"x"}`))), wantErr: "no name or version"},
		"inflating past the bound":       {value: helmEncode(t, bomb), wantErr: "more than the limit of 2Ki"},
		"too long":                       {value: bytes.Repeat([]byte("A"), helmRecordMaxBase64+4), wantErr: "more than"},
	} {
		t.Run(name, func(t *testing.T) {
			rel, err := decodeHelmRelease(tc.value)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to say %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rel.Name != "web" || rel.Version != 3 || rel.Info.Status != "deployed" || rel.Manifest != helmManifest {
				t.Errorf("decoded %+v", rel)
			}
		})
	}
}

func TestHelmRevisions(t *testing.T) {
	rev := func(version int, status string) *helmRelease {
		r := &helmRelease{Name: "web", Version: version, Manifest: helmManifest}
		r.Info.Status = status
		return r
	}
	revs := helmRevisions{rev(1, "superseded"), rev(4, "pending-upgrade"), rev(2, "deployed"), rev(3, "failed")}
	if got := revs.deployed(); got.Version != 2 {
		t.Errorf("deployed = revision %d, want 2", got.Version)
	}
	var after []int
	for _, r := range revs.after(revs.deployed()) {
		after = append(after, r.Version)
	}
	if !slices.Equal(after, []int{3, 4}) {
		t.Errorf("after = %v, want [3 4]", after)
	}
	if got := (helmRevisions{rev(1, "uninstalled"), rev(2, "failed")}).deployed(); got != nil {
		t.Errorf("deployed = revision %d of a release none of whose revisions is deployed", got.Version)
	}

	refs, err := helmManifestRefs(rev(2, "deployed"), "shop")
	if err != nil {
		t.Fatal(err)
	}
	want := []apply.ObjectRef{
		{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "shop", Name: "web"},
		{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: "other", Name: "web"},
		{GroupKind: schema.GroupKind{Group: "apps", Kind: "Deployment"}, Namespace: "shop", Name: "web"},
	}
	if !slices.Equal(refs, want) {
		t.Errorf("helmManifestRefs = %v, want %v", refs, want)
	}
	nameless := rev(2, "deployed")
	nameless.Manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n"
	if _, err := helmManifestRefs(nameless, "shop"); err == nil {
		t.Error("a manifest entry without a name was read")
	}
}

func TestHelmRecord(t *testing.T) {
	value := string(helmEncode(t, map[string]any{"name": "web", "version": 1, "info": map[string]any{"status": "deployed"}}))
	record := func(typ, data string) *unstructured.Unstructured {
		obj := &unstructured.Unstructured{Object: map[string]any{"data": map[string]any{helmReleaseKey: data}}}
		if typ != "" {
			obj.Object["type"] = typ
		}
		return obj
	}
	// The API server returns a Secret's data base64-encoded once more.
	secret := base64.StdEncoding.EncodeToString([]byte(value))
	for name, tc := range map[string]struct {
		obj     *unstructured.Unstructured
		secret  bool
		want    bool
		wantErr bool
	}{
		"a Secret of Helm's type":        {obj: record(helmReleaseType, secret), secret: true, want: true},
		"a Secret of another type":       {obj: record("Opaque", secret), secret: true},
		"a ConfigMap":                    {obj: record("", value), want: true},
		"a Secret whose data is garbled": {obj: record(helmReleaseType, "%%"), secret: true, wantErr: true},
	} {
		rel, err := helmRecord(tc.obj, tc.secret)
		if (err != nil) != tc.wantErr || (rel != nil) != tc.want {
			t.Errorf("%s: helmRecord = %v, %v", name, rel, err)
		}
	}
}

// FuzzDecodeHelmRelease feeds decodeHelmRelease records, valid and not: it
// returns a release or an error, and never more than its bound.
func FuzzDecodeHelmRelease(f *testing.F) {
	f.Add(helmEncode(f, map[string]any{"name": "web", "version": 1, "info": map[string]any{"status": "deployed"}, "manifest": helmManifest}))
	f.Add([]byte(base64.StdEncoding.EncodeToString([]byte(`{"name":"web","version":2}`))))
	f.Add([]byte("H4sI"))
	f.Fuzz(func(t *testing.T, value []byte) {
		rel, err := decodeHelmRelease(value)
		if err != nil {
			return
		}
		if rel.Name == "" || rel.Version < 1 {
			t.Errorf("decoded a release without name or version: %+v", rel)
		}
		_, _ = helmManifestRefs(rel, "shop")
	})
}

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
	"os"
	"path/filepath"
	"testing"

	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

func TestPushAndPullWithTheUsersDockerConfig(t *testing.T) {
	reg := newTestRegistry(t, basicAuth("alice", "s3cret"))
	dockerDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dockerDir, "config.json"), testenv.DockerConfig(reg.host, "alice", "s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", dockerDir)

	opts := Options{Policy: policy(t, "http://"+reg.host), Insecure: true, UserDockerConfig: true}
	digest := push(t, files, reg.url("private"), "v1", Metadata{Created: created}, opts)
	pulled, err := Pull(context.Background(), reg.url("private"), Version{Tag: "v1"}, opts, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if pulled.Digest != digest {
		t.Errorf("pulled %s, pushed %s", pulled.Digest, digest)
	}

	opts.DockerConfigJSON = testenv.DockerConfig(reg.host, "alice", "s3cret")
	_, err = Push(context.Background(), tree(t, files), reg.url("private"), "v1", Metadata{}, opts)
	wantErr(t, err, "credentials from both a Secret and the user's docker config")
}

func TestPushWritesMoreAnnotations(t *testing.T) {
	reg := newTestRegistry(t, nil)
	meta := Metadata{Created: created, Source: "https://git.example.com/app", Revision: "main@sha1:abc",
		Annotations: map[string]string{"org.opencontainers.image.licenses": "Apache-2.0"}}
	push(t, files, reg.url("app"), "v1", meta, reg.options(t))
	pulled, err := Pull(context.Background(), reg.url("app"), Version{Tag: "v1"}, reg.options(t), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		CreatedAnnotation:                   "2026-01-02T03:04:05Z",
		SourceAnnotation:                    meta.Source,
		RevisionAnnotation:                  meta.Revision,
		"org.opencontainers.image.licenses": "Apache-2.0",
	}
	for k, v := range want {
		if pulled.Annotations[k] != v {
			t.Errorf("annotation %s is %q, want %q", k, pulled.Annotations[k], v)
		}
	}

	meta.Annotations = map[string]string{SourceAnnotation: "elsewhere"}
	_, err = Push(context.Background(), tree(t, files), reg.url("app"), "v1", meta, reg.options(t))
	wantErr(t, err, "annotation "+SourceAnnotation+" is written from")
}

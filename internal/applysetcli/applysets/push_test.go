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
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
	"github.com/applyset-operator/applyset-operator/internal/ociartifact"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// loopbackRegistry serves an in-memory registry over plain HTTP on
// loopback, to the users of passwords alone when it names any, and returns
// its host.
func loopbackRegistry(t *testing.T, passwords map[string]string) string {
	t.Helper()
	host, stop := testenv.Registry(passwords)
	t.Cleanup(stop)
	return host
}

// runPush runs kubectl applyset push with args and returns its output,
// errors and exit status.
func runPush(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := newCommand(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr})
	cmd.SetArgs(append([]string{"push", "--yes"}, args...))
	code := cli.Execute(context.Background(), cmd)
	return stdout.String(), stderr.String(), code
}

func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// pull reads back an artifact as the operator reads an oci source.
func pull(t *testing.T, host, repo string, version ociartifact.Version) *ociartifact.Pulled {
	t.Helper()
	policy, err := fetchpolicy.Parse([]string{"http://" + host})
	if err != nil {
		t.Fatal(err)
	}
	pulled, err := ociartifact.Pull(context.Background(), ociartifact.Scheme+host+"/"+repo, version,
		ociartifact.Options{Policy: policy, Insecure: true},
		ociartifact.PullLimits{MaxManifestBytes: 1 << 16, MaxLayerBytes: 1 << 20, Extract: artifact.Limits{MaxBytes: 1 << 20, MaxFiles: 100, MaxPathLength: 256}})
	if err != nil {
		t.Fatal(err)
	}
	return pulled
}

var pushed = map[string]string{
	"base/kustomization.yaml":          "resources: [config.yaml]\n",
	"base/config.yaml":                 "{apiVersion: v1, kind: ConfigMap, metadata: {name: app}, data: {k: v}}\n",
	"overlays/prod/kustomization.yaml": "resources: [../../base]\nnamespace: prod\n",
}

func TestPushThenPullGivesTheSameFiles(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	host := loopbackRegistry(t, nil)
	dir := writeDir(t, pushed)
	url := ociartifact.Scheme + host + "/team/app"

	stdout, stderr, code := runPush(t, dir, url, "--tag", "v1", "--insecure",
		"--source", "https://git.example.com/app", "--revision", "main@sha1:abc", "--annotation", "org.opencontainers.image.licenses=Apache-2.0")
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr)
	}
	digest := strings.TrimSpace(stdout)
	if !strings.HasPrefix(digest, "sha256:") {
		t.Fatalf("printed %q, want a digest", stdout)
	}
	if !strings.Contains(stderr, "Pushed 3 files") {
		t.Errorf("stderr: %s", stderr)
	}

	pulled := pull(t, host, "team/app", ociartifact.Version{Tag: "v1", Digest: digest})
	got := map[string]string{}
	for _, p := range pulled.Files.Paths() {
		data, _ := pulled.Files.File(p)
		got[p] = string(data)
	}
	if !equalMaps(got, pushed) {
		t.Errorf("pulled %v, pushed %v", got, pushed)
	}
	want := map[string]string{
		ociartifact.CreatedAnnotation:       "1970-01-01T00:00:00Z",
		ociartifact.SourceAnnotation:        "https://git.example.com/app",
		ociartifact.RevisionAnnotation:      "main@sha1:abc",
		"org.opencontainers.image.licenses": "Apache-2.0",
	}
	if !equalMaps(pulled.Annotations, want) {
		t.Errorf("annotations %v, want %v", pulled.Annotations, want)
	}
}

func TestPushTheSameDirectoryGivesTheSameDigest(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	host := loopbackRegistry(t, nil)
	dir := writeDir(t, pushed)
	url := ociartifact.Scheme + host + "/app"
	first, stderr, code := runPush(t, dir, url, "--tag", "v1", "--insecure")
	if code != 0 {
		t.Fatal(stderr)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "base", "config.yaml"), later, later); err != nil {
		t.Fatal(err)
	}
	again, stderr, code := runPush(t, dir, url, "--tag", "v2", "--insecure")
	if code != 0 {
		t.Fatal(stderr)
	}
	if first != again {
		t.Errorf("the same directory gave %s, then %s", first, again)
	}
	now, stderr, code := runPush(t, dir, url, "--tag", "v3", "--insecure", "--created", "now")
	if code != 0 {
		t.Fatal(stderr)
	}
	if now == first {
		t.Error("--created now gave the reproducible digest")
	}
}

func TestPushUsesTheUsersDockerConfig(t *testing.T) {
	host := loopbackRegistry(t, map[string]string{"alice": "s3cret"})
	dir := writeDir(t, pushed)
	url := ociartifact.Scheme + host + "/private"

	t.Setenv("DOCKER_CONFIG", t.TempDir())
	_, stderr, code := runPush(t, dir, url, "--tag", "v1", "--insecure")
	if code != cli.ExitFailure || !strings.Contains(stderr, "the registry asks for credentials and none were given") {
		t.Fatalf("without credentials: exit status %d: %s", code, stderr)
	}

	dockerDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dockerDir, "config.json"), testenv.DockerConfig(host, "alice", "s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", dockerDir)
	if _, stderr, code := runPush(t, dir, url, "--tag", "v1", "--insecure"); code != 0 {
		t.Fatalf("with the docker config: exit status %d: %s", code, stderr)
	}
}

func TestPushRefuses(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	host := loopbackRegistry(t, nil)
	url := ociartifact.Scheme + host + "/app"
	outside := writeDir(t, map[string]string{"secret.yaml": "kind: Secret\n"})
	escaping := writeDir(t, pushed)
	if err := os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(escaping, "base", "secret.yaml")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "a link out of the directory", args: []string{escaping, url, "--tag", "v1", "--insecure"},
			want: `"base/secret.yaml": a symbolic link that leaves the directory`},
		{name: "an empty directory", args: []string{t.TempDir(), url, "--tag", "v1", "--insecure"}, want: "no files to push"},
		{name: "a tag in the URL", args: []string{writeDir(t, pushed), url + ":v1", "--tag", "v1", "--insecure"}, want: "give the tag or digest apart"},
		{name: "no tag", args: []string{writeDir(t, pushed), url, "--insecure"}, want: `required flag(s) "tag" not set`},
		{name: "a bad annotation", args: []string{writeDir(t, pushed), url, "--tag", "v1", "--annotation", "novalue"}, want: "want key=value"},
		{name: "a bad time", args: []string{writeDir(t, pushed), url, "--tag", "v1", "--created", "yesterday"}, want: "want RFC 3339 or now"},
		{name: "over the size limit", args: []string{writeDir(t, pushed), url, "--tag", "v1", "--insecure", "--max-input-size", "10"}, want: "larger than the limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runPush(t, tt.args...)
			if code != cli.ExitFailure || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit status %d, %q; want %d and %q", code, stderr, cli.ExitFailure, tt.want)
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

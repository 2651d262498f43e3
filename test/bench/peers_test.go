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

package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/applyset-operator/applyset-operator/internal/controlplane"
)

var (
	fluxOnce sync.Once
	fluxBin  string
	fluxErr  error
)

// fluxPeer builds test/peers/fluxssa, Flux's engine applying and pruning as
// kustomize-controller does, once per run.
func fluxPeer(b *testing.B) string {
	b.Helper()
	fluxOnce.Do(func() {
		root, err := controlplane.Root()
		if err != nil {
			fluxErr = err
			return
		}
		fluxBin = filepath.Join(tempDir, "fluxssa")
		out, err := exec.Command("go", "build", "-C", filepath.Join(root, "test", "peers"), "-o", fluxBin, "./fluxssa").CombinedOutput()
		if err != nil {
			fluxErr = err
			b.Logf("%s", out)
		}
	})
	if fluxErr != nil {
		b.Fatalf("building the Flux peer: %v", fluxErr)
	}
	return fluxBin
}

// runFlux applies the manifests with Flux's engine, pruning what the
// inventory file held and they lack.
func runFlux(ctx context.Context, b *testing.B, manifests, namespace, inventory string) {
	b.Helper()
	out, err := exec.CommandContext(ctx, fluxPeer(b), "--kubeconfig", env.Kubeconfig, "-f", manifests, "-n", namespace,
		"--inventory", inventory).CombinedOutput()
	if err != nil {
		b.Fatalf("fluxssa: %v\n%s", err, out)
	}
}

// writeFile writes content into a new file of the benchmark's and returns its path.
func writeFile(b *testing.B, name, content string) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

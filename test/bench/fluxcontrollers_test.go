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
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/applyset-operator/applyset-operator/internal/controlplane"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// fluxModules are the modules test/peers/flux builds the controllers from,
// by the name of their binaries.
var fluxModules = map[string]string{
	"source-controller":    "github.com/fluxcd/source-controller",
	"kustomize-controller": "github.com/fluxcd/kustomize-controller",
}

// fluxControllers are Flux's source-controller and kustomize-controller run
// as Flux ships them (their default flags and concurrency), each in a
// process of its own, against the control plane.
type fluxControllers struct {
	metrics []string // each controller's metrics URL
}

// cpu is the CPU both controllers have spent so far.
func (f *fluxControllers) cpu(ctx context.Context, b *testing.B) time.Duration {
	b.Helper()
	var total time.Duration
	for _, url := range f.metrics {
		d, err := testenv.ProcessCPU(ctx, url)
		if err != nil {
			b.Fatalf("reading a Flux controller's CPU: %v", err)
		}
		total += d
	}
	return total
}

var (
	fluxCtlOnce sync.Once
	fluxCtl     *fluxControllers
	fluxCtlErr  error
)

// startFluxControllers builds Flux's two controllers from their modules,
// installs their CRDs and runs them until the benchmark process ends: once
// per process, as the control plane is.
func startFluxControllers(b *testing.B) *fluxControllers {
	b.Helper()
	fluxCtlOnce.Do(func() { fluxCtl, fluxCtlErr = runFluxControllers(context.Background()) })
	if fluxCtlErr != nil {
		b.Fatalf("running Flux's controllers: %v", fluxCtlErr)
	}
	return fluxCtl
}

func runFluxControllers(ctx context.Context) (*fluxControllers, error) {
	root, err := controlplane.Root()
	if err != nil {
		return nil, err
	}
	module := filepath.Join(root, "test", "peers", "flux")
	for name, pkg := range fluxModules {
		if out, err := exec.Command("go", "build", "-C", module, "-o", filepath.Join(tempDir, name), pkg).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building %s: %w\n%s", name, err, out)
		}
		dir, err := exec.Command("go", "list", "-C", module, "-m", "-f", "{{.Dir}}", pkg).Output()
		if err != nil {
			return nil, fmt.Errorf("finding the module of %s: %w", name, err)
		}
		if err := installCRDs(ctx, filepath.Join(strings.TrimSpace(string(dir)), "config", "crd", "bases")); err != nil {
			return nil, err
		}
	}
	storage, err := controlplane.FreeAddr()
	if err != nil {
		return nil, err
	}
	storagePath := filepath.Join(tempDir, "flux-storage")
	if err := os.Mkdir(storagePath, 0o700); err != nil {
		return nil, err
	}
	f := &fluxControllers{}
	for name, args := range map[string][]string{
		"source-controller": {"--storage-path=" + storagePath,
			"--storage-addr=" + storage, "--storage-adv-addr=" + storage},
		"kustomize-controller": nil,
	} {
		metrics, health, err := runFluxController(name, args)
		if err != nil {
			return nil, err
		}
		if err := poll(time.Minute, func() bool { return httpOK(ctx, "http://"+health+"/readyz") }); err != nil {
			return nil, fmt.Errorf("%s did not become ready: %w; the end of its log:\n%s", name, err, logTail(name))
		}
		f.metrics = append(f.metrics, "http://"+metrics+"/metrics")
	}
	return f, nil
}

// runFluxController starts the controller name with args, logging errors
// only into a file of the benchmark's, and returns its metrics and health
// addresses.
func runFluxController(name string, args []string) (metrics, health string, err error) {
	if metrics, err = controlplane.FreeAddr(); err != nil {
		return "", "", err
	}
	if health, err = controlplane.FreeAddr(); err != nil {
		return "", "", err
	}
	log, err := os.Create(filepath.Join(tempDir, name+".log"))
	if err != nil {
		return "", "", err
	}
	cmd := exec.Command(filepath.Join(tempDir, name), append(args, "--metrics-addr="+metrics, "--health-addr="+health,
		"--enable-leader-election=false", "--log-level=error")...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.Kubeconfig, "RUNTIME_NAMESPACE=flux-system")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return "", "", fmt.Errorf("starting %s: %w", name, err)
	}
	atExit = append(atExit, func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = log.Close()
	})
	return metrics, health, nil
}

// installCRDs creates every CRD of the YAML files in dir and waits until
// each is established.
func installCRDs(ctx context.Context, dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no CRDs in %s", dir)
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096).Decode(crd); err != nil {
			return fmt.Errorf("decoding %s: %w", file, err)
		}
		if err := k8sClient.Create(ctx, crd); err != nil {
			return fmt.Errorf("creating the CRD of %s: %w", file, err)
		}
		if err := poll(30*time.Second, func() bool { return established(ctx, crd) }); err != nil {
			return fmt.Errorf("the CRD %s: %w", crd.Name, err)
		}
	}
	return nil
}

func httpOK(ctx context.Context, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// logTail is the last 4 KiB a Flux controller logged.
func logTail(name string) string {
	raw, err := os.ReadFile(filepath.Join(tempDir, name+".log"))
	if err != nil {
		return err.Error()
	}
	return string(raw[max(0, len(raw)-4096):])
}

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

package ui

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/utils/ptr"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

// serveShop starts a control plane where kubectl applied manifests as the
// set secret/<set> in namespace shop, and serves the ui's pages through a
// kubeconfig whose every request observe sees before the API server does.
func serveShop(t *testing.T, set, manifests string, observe func(*http.Request)) *httptest.Server {
	t.Helper()
	env, err := testenv.Start(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	for _, args := range [][]string{{"create", "namespace", "shop"},
		{"apply", "--server-side", "--prune", "--applyset=secret/" + set, "-n", "shop", "-f", "-"}} {
		if out, err := env.Kubectl(t.Context(), manifests, args...); err != nil {
			t.Fatalf("kubectl %v: %v: %s", args, err, out)
		}
	}
	kubeconfig, stop, err := env.WatchedKubeconfig(t.TempDir(), observe)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	_, o := cli.NewRoot(genericiooptions.NewTestIOStreamsDiscard())
	o.Flags.KubeConfig = ptr.To(kubeconfig)
	c, err := o.Clients()
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPages(c, options{}, "token", "", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	server := httptest.NewServer(p.routes())
	t.Cleanup(server.Close)
	return server
}

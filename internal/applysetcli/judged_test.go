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

package applysetcli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
)

// bigShopMembers is how many Services kubectl's set secret/big holds: more
// than one page, and Services, whose health needs the whole object.
const bigShopMembers = 300

// startBigShop is startShop with kubectl's set secret/big of bigShopMembers
// Services, and a kubeconfig through which reads of whole Services, a GET
// of one or a LIST of them (not their metadata), are counted.
func startBigShop(t *testing.T) (e *exitEnv, kubeconfig string, bodies *atomic.Int64) {
	t.Helper()
	e = startShop(t)
	var manifests strings.Builder
	for i := range bigShopMembers {
		fmt.Fprintf(&manifests, "{apiVersion: v1, kind: Service, metadata: {name: svc-%03d}, spec: {ports: [{port: 80}]}}\n---\n", i)
	}
	e.kubectl(t, manifests.String(), "apply", "--server-side", "--prune", "--applyset=secret/big", "-n", "shop", "-f", "-")
	bodies = &atomic.Int64{}
	kubeconfig, stop, err := e.env.WatchedKubeconfig(t.TempDir(), func(r *http.Request) {
		if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/shop/services") &&
			!strings.Contains(r.Header.Get("Accept"), "PartialObjectMetadata") {
			bodies.Add(1)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return e, kubeconfig, bodies
}

// TestViewJudgesOnlyItsPage: view of a page of a big set reads whole and
// judges only the members it lists, counts the rest from their metadata,
// and says so; without a page it judges every member, as before.
func TestViewJudgesOnlyItsPage(t *testing.T) {
	_, kubeconfig, bodies := startBigShop(t)
	view := func(t *testing.T, args ...string) string {
		t.Helper()
		bodies.Store(0)
		var out, stderr bytes.Buffer
		cmd := NewCommand(genericiooptions.IOStreams{In: nil, Out: &out, ErrOut: &stderr})
		cmd.SetArgs(append(append([]string{"view", "secret/big"}, args...), "-n", "shop", "--kubeconfig", kubeconfig))
		code := cli.Execute(t.Context(), cmd)
		if code != 0 {
			t.Fatalf("exit status %d; stderr:\n%s", code, stderr.String())
		}
		return out.String()
	}
	t.Run("a page of 50", func(t *testing.T) {
		out := view(t, "--offset=100", "--limit=50")
		want(t, 0, 0, out, "Members:               300\n", "Health:                50/50 ready (judged 50 of 300)\n",
			"Members 101 to 150 of 300 listed; --offset=150 for the next ones.")
		if n := bodies.Load(); n != 50 {
			t.Errorf("%d reads of whole Services, want 50: one GET a member listed", n)
		}
	})
	t.Run("a page of 50 as JSON", func(t *testing.T) {
		var got struct {
			Judged *int   `json:"judged"`
			Health string `json:"health"`
			List   []any  `json:"memberList"`
		}
		if err := json.Unmarshal([]byte(view(t, "--limit=50", "-o", "json")), &got); err != nil {
			t.Fatal(err)
		}
		if got.Judged == nil || *got.Judged != 50 || len(got.List) != 50 || got.Health != "50/50 ready (judged 50 of 300)" {
			t.Errorf("judged %v, %d members listed, health %q; want 50 judged of 50 listed", got.Judged, len(got.List), got.Health)
		}
	})
	t.Run("every member", func(t *testing.T) {
		out := view(t)
		want(t, 0, 0, out, "Health:                300/300 ready\n")
		if strings.Contains(out, "judged") {
			t.Errorf("a view of every member says what it judged:\n%s", out)
		}
		if n := bodies.Load(); n != 1 {
			t.Errorf("%d reads of whole Services, want 1: one LIST of them all", n)
		}
	})
}

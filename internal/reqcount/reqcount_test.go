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

package reqcount

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/client-go/rest"
)

// TestCountsTheRequestsOfItsContext: requests made with a context carrying a
// Counter are counted by it, through a config copied from the wrapped one,
// and Take gives each request once; others are not counted.
func TestCountsTheRequestsOfItsContext(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("{}")) }))
	defer srv.Close()
	cfg := rest.CopyConfig(WrapConfig(&rest.Config{Host: srv.URL}))
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	get := func(ctx context.Context) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	ctx, c := Into(context.Background())
	get(ctx)
	get(ctx)
	get(context.Background())
	if got := c.Take(); got != 2 {
		t.Errorf("took %d requests, want the 2 made with its context", got)
	}
	get(ctx)
	if got := c.Take(); got != 1 {
		t.Errorf("took %d requests after a Take, want 1", got)
	}
	if From(context.Background()).Take() != 0 {
		t.Errorf("a context without a Counter counted")
	}
}

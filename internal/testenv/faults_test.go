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

package testenv

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// A write whose answer Faults loses was made all the same; a watch is held
// back from the end of its list on, and a plain read not at all.
func TestFaults(t *testing.T) {
	var writes atomic.Int64
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPatch {
			writes.Add(1)
		}
		if r.URL.Query().Get("watch") == "true" {
			_, _ = io.WriteString(w, `{"type":"ADDED"}`+"\n"+`{"type":"BOOKMARK","annotations":{"k8s.io/initial-events-end":"true"}}`+"\n")
			w.(http.Flusher).Flush()
			for range 3 {
				_, _ = io.WriteString(w, `{"type":"MODIFIED"}`+"\n")
				w.(http.Flusher).Flush()
				time.Sleep(10 * time.Millisecond)
			}
			return
		}
		_, _ = io.WriteString(w, "{}")
	}))
	defer server.Close()

	f := NewFaults(1)
	f.LostAnswers, f.WatchLag = 1, 20*time.Millisecond
	httpClient := &http.Client{Transport: f.Wrap(&rest.Config{Host: server.URL}).WrapTransport(http.DefaultTransport)}

	req, _ := http.NewRequest(http.MethodPatch, server.URL+"/api/v1/namespaces/a/configmaps/b", strings.NewReader("{}"))
	if _, err := httpClient.Do(req); err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Errorf("a write's answer came back: %v", err)
	}
	if writes.Load() != 1 {
		t.Errorf("%d writes made, want 1", writes.Load())
	}
	if _, err := httpClient.Get(server.URL + "/api/v1/configmaps"); err != nil {
		t.Errorf("a read failed: %v", err)
	}

	resp, err := httpClient.Get(server.URL + "/api/v1/configmaps?watch=true&sendInitialEvents=true")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil || strings.Count(string(body), "MODIFIED") != 3 {
		t.Fatalf("watch read %q, %v", body, err)
	}
	if held := f.Held(); held < 1 || held > 3 || f.Lost() != 1 {
		t.Errorf("held %d reads and lost %d answers, want those of the 3 events after the list only, and 1", held, f.Lost())
	}
}

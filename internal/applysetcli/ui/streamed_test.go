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
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSetPageStreams: a set's page sends its head while its members are
// still being listed, and the rest after; what fails after the head is
// said in the page, which still ends.
func TestSetPageStreams(t *testing.T) {
	var manifests strings.Builder
	for i := range 3 {
		fmt.Fprintf(&manifests, "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm-%d}, data: {k: v}}\n---\n", i)
	}
	// hold, when set, is asked about each listing of metadata before the
	// API server sees it.
	var (
		mu   sync.Mutex
		hold func(*http.Request)
	)
	server := serveShop(t, "web", manifests.String(), func(r *http.Request) {
		mu.Lock()
		h := hold
		mu.Unlock()
		if h != nil && r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "PartialObjectMetadataList") {
			h(r)
		}
	})
	setHold := func(h func(*http.Request)) {
		mu.Lock()
		defer mu.Unlock()
		hold = h
	}

	t.Run("the head comes before the members are listed", func(t *testing.T) {
		listing, release, gaveUp := make(chan struct{}, 1), make(chan struct{}), make(chan struct{}, 1)
		setHold(func(r *http.Request) {
			if !strings.HasSuffix(r.URL.Path, "/configmaps") {
				return
			}
			select {
			case listing <- struct{}{}:
			default:
			}
			select {
			case <-release:
			case <-r.Context().Done(): // the ui stopped waiting for the members
				gaveUp <- struct{}{}
			}
		})
		t.Cleanup(func() { setHold(nil) })
		resp, err := http.Get(server.URL + "/sets/shop/secret/web")
		if err != nil {
			close(release)
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		body := bufio.NewReader(resp.Body)
		type read struct {
			head string
			err  error
		}
		got := make(chan read, 1)
		go func() {
			head, err := readHead(body)
			got <- read{head, err}
		}()
		var r read
		select {
		case r = <-got:
		case <-time.After(time.Minute): // not a measure: what would otherwise wait for ever
		}
		<-listing // the members' listing is held, not yet answered
		close(release)
		select {
		case <-gaveUp:
			r.err = fmt.Errorf("it came once the listing was given up")
		default:
		}
		if r.head == "" || r.err != nil {
			t.Fatalf("the head did not come while the members were listed: %v: %s", r.err, r.head)
		}
		head := r.head
		for _, want := range []string{"<h1>secret/web</h1>", "<dd>shop</dd>", `class="pending"`} {
			if !strings.Contains(head, want) {
				t.Errorf("the head lacks %s:\n%s", want, head)
			}
		}
		if strings.Contains(head, `id="member-count"`) {
			t.Errorf("the head counts members before they were listed:\n%s", head)
		}
		rest, err := io.ReadAll(body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d, %v:\n%s", resp.StatusCode, err, rest)
		}
		for _, want := range []string{`<dd id="member-count">3</dd>`, `<tr id="member-`, "</html>"} {
			if !strings.Contains(string(rest), want) {
				t.Errorf("the rest lacks %s:\n%s", want, rest)
			}
		}
	})

	t.Run("what fails after the head is in the page", func(t *testing.T) {
		// A selector the API server refuses fails the listing of the
		// parents, after the head: the set's parent is then not found.
		setHold(func(r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/secrets") {
				r.URL.RawQuery = "labelSelector=%21%21"
			}
		})
		t.Cleanup(func() { setHold(nil) })
		resp, err := http.Get(server.URL + "/sets/shop/secret/web")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d, %v:\n%s", resp.StatusCode, err, body)
		}
		page := string(body)
		for _, want := range []string{"<h1>secret/web</h1>", `<section class="failure"`, "The ApplySet could not be read",
			"cannot list secrets", "its type could not be listed", "</html>"} {
			if !strings.Contains(page, want) {
				t.Errorf("the page lacks %s:\n%s", want, page)
			}
		}
		if strings.Contains(page, `id="member-count"`) || strings.Contains(page, "no parent type") {
			t.Errorf("the page counts members it could not list, or blames the type:\n%s", page)
		}
	})
}

// readHead reads up to the note that the members are being read, which
// ends the head.
func readHead(body *bufio.Reader) (string, error) {
	var head strings.Builder
	for !strings.Contains(head.String(), `class="pending"`) {
		line, err := body.ReadString('\n')
		head.WriteString(line)
		if err != nil {
			return head.String(), err
		}
	}
	return head.String(), nil
}

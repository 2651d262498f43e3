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
	"context"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
)

func TestCheckAddress(t *testing.T) {
	for _, tc := range []struct {
		o    options
		want string // part of the error; "" for none
	}{
		{options{Address: "127.0.0.1"}, ""},
		{options{Address: "::1"}, ""},
		{options{Address: "localhost"}, ""},
		{options{Address: "127.0.0.1", Port: 8765}, ""},
		{options{Address: "192.0.2.10"}, "--listen-beyond-loopback"},
		{options{Address: "192.0.2.10", ListenBeyondLoopback: true}, ""},
		{options{Address: "0.0.0.0"}, "--listen-beyond-loopback"},
		{options{Address: "0.0.0.0", ListenBeyondLoopback: true}, "name the one address"},
		{options{Address: "example.com"}, "want an IP address"},
		{options{Address: "127.0.0.1", Port: 70000}, "--port"},
		{options{Address: "localhost", Port: -1}, "--port"},
	} {
		err := checkAddress(tc.o)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: error %v, want %q", tc.o, err, tc.want)
		}
	}
}

// TestServe: the URL comes first, the page's own script and style are
// served, and the server stops when its context ends.
func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := serve(ctx, w, io.Discard, &cli.Clients{}, options{Address: "127.0.0.1"})
		_ = w.CloseWithError(fmt.Errorf("serve returned: %w", err)) // a server that fails to start fails the read below
		done <- err
	}()
	url, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, r) }()
	url = strings.TrimSpace(url)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/") {
		t.Fatalf("first line %q: want the URL", url)
	}
	for file, kind := range map[string]string{"static/app.js": "javascript", "static/style.css": "text/css"} {
		resp, err := http.Get(url + file)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), kind) {
			t.Errorf("%s: status %d, type %q", file, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	// A connection a browser opened ahead of a request it never made.
	idle, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = idle.Close() }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("stopping: %v", err)
		}
	case <-time.After(shutdownGrace + 5*time.Second):
		t.Fatal("the server did not stop when its context ended")
	}
}

func TestServeRefusesAnAddressBeyondLoopback(t *testing.T) {
	err := serve(t.Context(), io.Discard, io.Discard, &cli.Clients{}, options{Address: "192.0.2.10"})
	if err == nil || !strings.Contains(err.Error(), "--listen-beyond-loopback") {
		t.Errorf("error %v, want the confirmation flag named", err)
	}
}

// A URL that carries the read secret is never on the browser's command line,
// which other local users can read: the browser opens a page only the user
// may read, which sends it on.
func TestBrowserTarget(t *testing.T) {
	plain := "http://127.0.0.1:8765/"
	if target, cleanup, err := browserTarget(plain, false); err != nil || target != plain {
		t.Errorf("a URL without a secret: target %q, error %v, want the URL", target, err)
	} else {
		cleanup()
	}
	secret := plain + "s3cret&x/"
	target, cleanup, err := browserTarget(secret, true)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(target, "s3cret") {
		t.Errorf("the browser's argument %q carries the secret", target)
	}
	info, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.Stat(filepath.Dir(target))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 || dir.Mode().Perm() != 0o700 {
		t.Errorf("the page is %v in a directory %v, want only the user's", info.Mode().Perm(), dir.Mode().Perm())
	}
	page, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `content="0;url=`+html.EscapeString(secret)+`"`) {
		t.Errorf("the page does not send the browser on to the URL: %s", page)
	}
	cleanup()
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("the page stays after the server stops: %v", err)
	}
}

// Beyond loopback anyone who reaches the port could read a page, and the
// write token in it: reading needs the read secret, which the printed URL
// carries, even without --token-in-url.
func TestServeBeyondLoopbackNeedsTheReadSecret(t *testing.T) {
	address := ""
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if ip, ok := a.(*net.IPNet); ok && ip.IP.To4() != nil && !ip.IP.IsLoopback() {
			address = ip.IP.String()
			break
		}
	}
	if address == "" {
		t.Skip("this machine has no IPv4 address beyond loopback")
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r, w := io.Pipe()
	go func() {
		err := serve(ctx, w, io.Discard, &cli.Clients{}, options{Address: address, ListenBeyondLoopback: true})
		_ = w.CloseWithError(fmt.Errorf("serve returned: %w", err))
	}()
	url, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, r) }()
	url = strings.TrimSpace(url)
	secret := strings.TrimSuffix(strings.TrimPrefix(url, "http://"+address+":"), "/")
	_, secret, _ = strings.Cut(secret, "/")
	if len(secret) != 43 {
		t.Fatalf("the URL %q carries no read secret", url)
	}
	base := strings.TrimSuffix(url, secret+"/")
	for _, tc := range []struct {
		url  string
		want int
	}{
		{base + "static/app.js", http.StatusUnauthorized},
		{url + "static/app.js", http.StatusOK},
	} {
		resp, err := http.Get(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: status %d, want %d", tc.url, resp.StatusCode, tc.want)
		}
		if set := resp.Header.Values("Set-Cookie"); len(set) > 0 {
			t.Errorf("%s: a cookie was set, which every port of the host would receive: %q", tc.url, set)
		}
	}
}

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
	"cmp"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// dummyPost stands for the state-changing routes to come: the guard must
// hold for them before they exist.
func guarded() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("page")) })
	mux.HandleFunc("POST /act", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("done")) })
	return newGuard("8765", "", "the-token", mux)
}

func TestGuardHost(t *testing.T) {
	for _, tc := range []struct {
		host string
		want int
	}{
		{"127.0.0.1:8765", http.StatusOK},
		{"localhost:8765", http.StatusOK},
		{"LOCALHOST:8765", http.StatusOK},
		{"[::1]:8765", http.StatusOK},
		// DNS rebinding: a name of another site, resolved to 127.0.0.1.
		{"evil.example:8765", http.StatusMisdirectedRequest},
		{"127.0.0.1.nip.io:8765", http.StatusMisdirectedRequest},
		{"localhost.evil.example:8765", http.StatusMisdirectedRequest},
		// Missing or wrong port: another server's page, or a guess.
		{"127.0.0.1", http.StatusMisdirectedRequest},
		{"localhost", http.StatusMisdirectedRequest},
		{"127.0.0.1:80", http.StatusMisdirectedRequest},
		{"localhost:87650", http.StatusMisdirectedRequest},
		{"[::1]", http.StatusMisdirectedRequest},
		{"::1:8765", http.StatusMisdirectedRequest},
		{"0.0.0.0:8765", http.StatusMisdirectedRequest},
		{"127.0.0.2:8765", http.StatusMisdirectedRequest},
		{"", http.StatusMisdirectedRequest},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = tc.host
		w := httptest.NewRecorder()
		guarded().ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("Host %q: status %d, want %d", tc.host, w.Code, tc.want)
		}
		if w.Code != http.StatusOK && !strings.Contains(w.Body.String(), "loopback address and port") {
			t.Errorf("Host %q: refused without saying why: %q", tc.host, w.Body.String())
		}
	}
}

func TestGuardStateChanging(t *testing.T) {
	const origin = "http://127.0.0.1:8765"
	for _, tc := range []struct {
		name, method, origin, token string
		want                        int
	}{
		{"same origin with the token", http.MethodPost, origin, "the-token", http.StatusOK},
		{"no token", http.MethodPost, origin, "", http.StatusForbidden},
		{"wrong token", http.MethodPost, origin, "the-tokeN", http.StatusForbidden},
		{"token's prefix", http.MethodPost, origin, "the-tok", http.StatusForbidden},
		{"no Origin", http.MethodPost, "", "the-token", http.StatusForbidden},
		{"another site", http.MethodPost, "http://evil.example", "the-token", http.StatusForbidden},
		{"another port", http.MethodPost, "http://127.0.0.1:9999", "the-token", http.StatusForbidden},
		{"https origin", http.MethodPost, "https://127.0.0.1:8765", "the-token", http.StatusForbidden},
		{"null origin", http.MethodPost, "null", "the-token", http.StatusForbidden},
		{"other loopback name", http.MethodPost, "http://localhost:8765", "the-token", http.StatusForbidden},
		{"CORS preflight", http.MethodOptions, "http://evil.example", "", http.StatusForbidden},
		{"PUT without token", http.MethodPut, origin, "", http.StatusForbidden},
		{"DELETE without token", http.MethodDelete, origin, "", http.StatusForbidden},
		{"GET needs neither", http.MethodGet, "http://evil.example", "", http.StatusOK},
	} {
		target := "/act"
		if tc.method == http.MethodGet {
			target = "/"
		}
		r := httptest.NewRequest(tc.method, target, nil)
		r.Host = "127.0.0.1:8765"
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		if tc.token != "" {
			r.Header.Set(tokenHeader, tc.token)
		}
		w := httptest.NewRecorder()
		guarded().ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("%s: status %d, want %d (%s)", tc.name, w.Code, tc.want, w.Body.String())
		}
		if got := w.Header().Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("%s: a CORS header was set: %q", tc.name, got)
		}
	}
}

func TestGuardSecurityHeaders(t *testing.T) {
	for _, host := range []string{"127.0.0.1:8765", "evil.example:8765"} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = host
		w := httptest.NewRecorder()
		guarded().ServeHTTP(w, r)
		csp := w.Header().Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: Content-Security-Policy %q lacks %q", host, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s: Content-Security-Policy allows inline script: %q", host, csp)
		}
		for k, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"} {
			if got := w.Header().Get(k); got != want {
				t.Errorf("%s: %s %q, want %q", host, k, got, want)
			}
		}
	}
}

// TestGuardBeyondLoopback: an address the user chose beyond loopback is
// allowed with its port, and only it.
func TestGuardBeyondLoopback(t *testing.T) {
	g := newGuard("8765", "192.0.2.10", "t", http.NotFoundHandler())
	for host, want := range map[string]bool{"192.0.2.10:8765": true, "127.0.0.1:8765": true, "192.0.2.11:8765": false, "192.0.2.10:80": false} {
		if g.hosts[host] != want {
			t.Errorf("Host %s allowed: %v, want %v", host, g.hosts[host], want)
		}
	}
}

func TestNewToken(t *testing.T) {
	a, b := newToken(), newToken()
	if a == b || len(a) < 43 {
		t.Errorf("tokens %q and %q: want two different ones of 256 bits", a, b)
	}
}

// With --token-in-url, or beyond loopback, every route lives under the read
// secret, the first segment of the path the printed URL carries: the links
// carry it, not a cookie, which a browser would send to every port of the
// host. It is not the write token, which opens no page. Without it, pages are
// read freely.
func TestGuardReadSecret(t *testing.T) {
	// The handler behind the guard says which request reached it.
	g := newGuard("8765", "", "the-token", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(r.URL.RequestURI()))
	}))
	g.readSecret = "the-read-secret"
	for _, tc := range []struct {
		name, method, url, cookie, token string
		want                             int
		reached                          string // the request the handler saw
	}{
		{name: "nothing", url: "/sets/shop/secret/web", want: http.StatusUnauthorized},
		{name: "under the secret", url: "/the-read-secret/sets/shop/secret/web?page=2", want: http.StatusOK,
			reached: "/sets/shop/secret/web?page=2"},
		{name: "the secret alone", url: "/the-read-secret", want: http.StatusOK, reached: "/"},
		{name: "the secret and a slash", url: "/the-read-secret/", want: http.StatusOK, reached: "/"},
		{name: "an escaped path under the secret", url: "/the-read-secret/sets/a%2Fb/secret/web", want: http.StatusOK,
			reached: "/sets/a%2Fb/secret/web"},
		{name: "a wrong secret", url: "/the-read-secreT/", want: http.StatusUnauthorized},
		{name: "the secret's prefix", url: "/the-read/", want: http.StatusUnauthorized},
		{name: "the secret further on", url: "/static/the-read-secret/app.js", want: http.StatusUnauthorized},
		{name: "the write token", url: "/the-token/", want: http.StatusUnauthorized},
		{name: "the secret in the query", url: "/?token=the-read-secret", want: http.StatusUnauthorized},
		{name: "the secret in a cookie", url: "/static/app.js", cookie: "the-read-secret", want: http.StatusUnauthorized},
		{name: "a write under the secret", method: http.MethodPost, url: "/the-read-secret/act", token: "the-token", want: http.StatusOK,
			reached: "/act"},
		{name: "a write under the secret without the write token", method: http.MethodPost, url: "/the-read-secret/act", want: http.StatusForbidden},
		{name: "a write without the secret", method: http.MethodPost, url: "/act", token: "the-token", want: http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method := cmp.Or(tc.method, http.MethodGet)
			r := httptest.NewRequest(method, tc.url, nil)
			r.Host = "127.0.0.1:8765"
			if tc.cookie != "" {
				r.AddCookie(&http.Cookie{Name: "applyset-token-8765", Value: tc.cookie})
			}
			if method == http.MethodPost {
				r.Header.Set("Origin", "http://127.0.0.1:8765")
			}
			if tc.token != "" {
				r.Header.Set(tokenHeader, tc.token)
			}
			w := httptest.NewRecorder()
			g.ServeHTTP(w, r)
			if set := w.Header().Values("Set-Cookie"); len(set) > 0 {
				t.Errorf("a cookie was set, which every port of the host would receive: %q", set)
			}
			if w.Code != tc.want {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.want, w.Body)
			}
			if tc.reached != "" && w.Body.String() != tc.reached {
				t.Errorf("the handler saw %q, want %q", w.Body, tc.reached)
			}
			if tc.want == http.StatusUnauthorized && !strings.Contains(w.Body.String(), "open the URL kubectl applyset ui printed") {
				t.Errorf("refused without saying what to do: %q", w.Body)
			}
		})
	}
	g.readSecret = ""
	r := httptest.NewRequest(http.MethodGet, "/sets/shop/secret/web", nil)
	r.Host = "127.0.0.1:8765"
	w := httptest.NewRecorder()
	g.ServeHTTP(w, r)
	if w.Code != http.StatusOK || w.Body.String() != "/sets/shop/secret/web" {
		t.Errorf("without --token-in-url a page needs no secret: status %d, the handler saw %q", w.Code, w.Body)
	}
}

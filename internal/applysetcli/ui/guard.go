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
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/http"
	"strings"
)

// tokenHeader is the header every state-changing request carries the
// page's token in.
const tokenHeader = "X-Applyset-Token"

// localhost is the loopback name browsers resolve without asking DNS.
const localhost = "localhost"

// securityHeaders keep the page from being framed, from running any script
// but its own files and from telling other sites where the user came from.
var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
	"X-Content-Type-Options":  "nosniff",
	"X-Frame-Options":         "DENY",
	"Referrer-Policy":         "no-referrer",
	"Cache-Control":           "no-store",
}

// guard stands before every handler of the server, which acts with the
// user's rights: a web page of any other site the user's browser opens could
// otherwise reach it, through a DNS name rebound to 127.0.0.1 (refused by
// the Host check) or by a form posted across sites (refused by the Origin
// and token checks). It sets no CORS header, so no other origin may read an
// answer.
type guard struct {
	hosts map[string]bool // host:port values of the Host header, in lower case
	// token is the write token: the pages carry it, and every request that
	// changes anything sends it back.
	token string
	// readSecret, when set, is needed for any request too: every route
	// lives under it, the first segment of the path, which the printed URL
	// and every link of the pages carry. It is never put in a cookie, which
	// a browser would send to every port of the host, other servers' too.
	// It is not the write token, which no URL carries.
	readSecret string
	next       http.Handler
}

// newGuard allows the loopback names with port, and any other address the
// server was told to listen on.
func newGuard(port, address, token string, next http.Handler) *guard {
	g := &guard{hosts: map[string]bool{}, token: token, next: next}
	for _, h := range []string{"127.0.0.1", localhost, "::1", address} {
		if h != "" {
			g.hosts[strings.ToLower(net.JoinHostPort(h, port))] = true
		}
	}
	return g
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for k, v := range securityHeaders {
		w.Header().Set(k, v)
	}
	if !g.hosts[strings.ToLower(r.Host)] {
		http.Error(w, "This server only answers requests addressed to it by its loopback address and port; "+
			"open the URL kubectl applyset ui printed.", http.StatusMisdirectedRequest)
		return
	}
	if g.readSecret != "" {
		if r = g.inside(w, r); r == nil {
			return
		}
	}
	if !safeMethod(r.Method) {
		if r.Header.Get("Origin") != "http://"+r.Host {
			http.Error(w, "Refused: a request that changes anything must come from this server's own pages.", http.StatusForbidden)
			return
		}
		if !g.valid(r.Header.Get(tokenHeader)) {
			http.Error(w, "Refused: the request lacks this run's token; reload the page.", http.StatusForbidden)
			return
		}
	}
	g.next.ServeHTTP(w, r)
}

// inside returns the request r names under the read secret, with the
// secret taken off its path, as the routes know it: /<secret>/sets/... is
// /sets/..., /<secret> and /<secret>/ are /. It answers any other request
// itself, and returns nil.
func (g *guard) inside(w http.ResponseWriter, r *http.Request) *http.Request {
	first, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if !same(first, g.readSecret) {
		http.Error(w, "This page needs this run's read secret in its address: open the URL kubectl applyset ui printed.", http.StatusUnauthorized)
		return nil
	}
	in := r.Clone(r.Context())
	in.URL.Path = "/" + rest
	if r.URL.RawPath != "" {
		// The secret has no character to escape: the escaped path's first
		// segment is the same.
		_, raw, _ := strings.Cut(strings.TrimPrefix(r.URL.RawPath, "/"), "/")
		in.URL.RawPath = "/" + raw
	}
	return in
}

func (g *guard) valid(token string) bool {
	return same(token, g.token)
}

// same compares a secret in constant time.
func same(got, secret string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(secret)) == 1
}

// safeMethod reports whether a request of method changes nothing.
func safeMethod(method string) bool {
	return method == http.MethodGet || method == http.MethodHead
}

// newToken is a token for one run of the server: 256 random bits.
func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails: it crashes the program instead
	return base64.RawURLEncoding.EncodeToString(b)
}

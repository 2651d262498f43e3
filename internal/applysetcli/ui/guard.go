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
	// readSecret, when set, is needed to read pages too: the printed URL
	// carries it once, and a cookie of this server's port keeps it. It is
	// not the write token, so that the URL (in the browser's history) and
	// the cookie do not let anyone write by themselves.
	readSecret string
	cookie     string // the cookie's name
	next       http.Handler
}

// newGuard allows the loopback names with port, and any other address the
// server was told to listen on.
func newGuard(port, address, token string, next http.Handler) *guard {
	g := &guard{hosts: map[string]bool{}, token: token, next: next, cookie: "applyset-token-" + port}
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
	if safeMethod(r.Method) && g.readSecret != "" && !g.mayRead(w, r) {
		return
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

// tokenParam is the query parameter of the printed URL that carries the
// token when reading needs it.
const tokenParam = "token"

// mayRead lets a reading request through when it carries the token: in the
// URL once, which it trades for a cookie and a redirect to the same page
// without it (so that it stays out of the history), or in the cookie. The
// cookie is this port's, HttpOnly and SameSite=Strict: other sites' pages
// cannot send it. It answers any other request itself.
func (g *guard) mayRead(w http.ResponseWriter, r *http.Request) bool {
	if c, err := r.Cookie(g.cookie); err == nil && same(c.Value, g.readSecret) {
		return true
	}
	q := r.URL.Query()
	if !q.Has(tokenParam) || !same(q.Get(tokenParam), g.readSecret) {
		http.Error(w, "This page needs this run's token: open the URL kubectl applyset ui printed.", http.StatusUnauthorized)
		return false
	}
	http.SetCookie(w, &http.Cookie{Name: g.cookie, Value: g.readSecret, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	q.Del(tokenParam)
	to := *r.URL
	to.RawQuery = q.Encode()
	http.Redirect(w, r, to.RequestURI(), http.StatusSeeOther)
	return false
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

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

package fetchpolicy

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"
)

const (
	dialTimeout           = 10 * time.Second
	tlsHandshakeTimeout   = 10 * time.Second
	responseHeaderTimeout = 30 * time.Second
	maxRedirects          = 5
)

// Dialer returns a dialer that checks, with CheckDial, every address it
// is about to connect to, once DNS has resolved it.
func (p *Policy) Dialer() *net.Dialer {
	return &net.Dialer{
		Timeout: dialTimeout,
		Control: func(_, address string, _ syscall.RawConn) error {
			return p.CheckDial(address)
		},
	}
}

// HTTPClient returns a client whose every request, redirects included, is
// checked against the policy before it is sent and whose every connection
// goes through Dialer. It uses no proxy (a proxy would dial in our stead,
// out of the policy's sight) and nothing from the environment, but for an
// Unrestricted policy, which uses the environment's proxy. Plain HTTP
// is used only when allowPlainHTTP is set and the host allows it.
// tlsConfig may be nil for the system's roots.
func (p *Policy) HTTPClient(tlsConfig *tls.Config, allowPlainHTTP bool) *http.Client {
	var proxy func(*http.Request) (*url.URL, error)
	if p.unrestricted {
		proxy = http.ProxyFromEnvironment
	}
	transport := &http.Transport{
		Proxy:                 proxy,
		DialContext:           p.Dialer().DialContext,
		TLSClientConfig:       tlsConfig,
		TLSHandshakeTimeout:   tlsHandshakeTimeout,
		ResponseHeaderTimeout: responseHeaderTimeout,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          10,
		IdleConnTimeout:       90 * time.Second,
	}
	return &http.Client{
		Transport: &checkedTransport{policy: p, next: transport, allowPlainHTTP: allowPlainHTTP},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("%s: more than %d redirects", req.URL.Redacted(), maxRedirects)
			}
			return nil
		},
	}
}

// checkedTransport checks every request's scheme and host before sending it.
type checkedTransport struct {
	policy         *Policy
	next           http.RoundTripper
	allowPlainHTTP bool
}

func (t *checkedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.check(req); err != nil {
		if req.Body != nil {
			_ = req.Body.Close() // a RoundTripper must close the body, even on error
		}
		return nil, err
	}
	return t.next.RoundTrip(req)
}

func (t *checkedTransport) check(req *http.Request) error {
	switch req.URL.Scheme {
	case "https":
		return t.policy.CheckHost(req.URL.Host, "443", false)
	case "http":
		if !t.allowPlainHTTP {
			return fmt.Errorf("%s: plain HTTP was not asked for", req.URL.Redacted())
		}
		return t.policy.CheckHost(req.URL.Host, "80", true)
	}
	return fmt.Errorf("%s: scheme %q is not allowed", req.URL.Redacted(), req.URL.Scheme)
}

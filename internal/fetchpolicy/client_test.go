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
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// server serves "ok" and counts the requests that reached it.
func server(t *testing.T, tls bool) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if to := r.URL.Query().Get("redirect"); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	var srv *httptest.Server
	if tls {
		srv = httptest.NewTLSServer(handler)
	} else {
		srv = httptest.NewServer(handler)
	}
	t.Cleanup(srv.Close)
	return srv, &hits
}

func get(t *testing.T, client *http.Client, target string) error {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

func TestHTTPClient(t *testing.T) {
	plain, plainHits := server(t, false)
	secure, secureHits := server(t, true)
	plainHost := strings.TrimPrefix(plain.URL, "http://")
	secureHost := strings.TrimPrefix(secure.URL, "https://")
	_, securePort, _ := net.SplitHostPort(secureHost)
	tlsConfig := secure.Client().Transport.(*http.Transport).TLSClientConfig

	tests := []struct {
		name           string
		allowed        []string
		allowPlainHTTP bool
		url            string
		wantErr        string
		wantPlainHits  int32
		wantSecureHits int32
	}{{
		name:           "an allowed host over HTTPS",
		allowed:        []string{secureHost},
		url:            secure.URL,
		wantSecureHits: 1,
	}, {
		name:    "a host not allowed is refused before any request",
		allowed: []string{"registry.example.com"},
		url:     secure.URL,
		wantErr: "is not among the hosts",
	}, {
		name:           "plain HTTP allowed by the host and asked for",
		allowed:        []string{"http://" + plainHost},
		allowPlainHTTP: true,
		url:            plain.URL,
		wantPlainHits:  1,
	}, {
		name:    "plain HTTP allowed by the host but not asked for",
		allowed: []string{"http://" + plainHost},
		url:     plain.URL,
		wantErr: "plain HTTP was not asked for",
	}, {
		name:           "plain HTTP asked for but not allowed by the host",
		allowed:        []string{plainHost},
		allowPlainHTTP: true,
		url:            plain.URL,
		wantErr:        "HTTPS only",
	}, {
		name:    "a name that resolves to loopback is refused at dial time",
		allowed: []string{"localhost:" + securePort},
		url:     "https://localhost:" + securePort,
		wantErr: "loopback, link-local and metadata addresses are refused",
	}, {
		name:           "a redirect to a host not allowed is refused",
		allowed:        []string{secureHost},
		url:            secure.URL + "?redirect=" + url.QueryEscape("https://other.example.com/"),
		wantErr:        `host "other.example.com" is not among`,
		wantSecureHits: 1,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plainHits.Store(0)
			secureHits.Store(0)
			policy, err := Parse(tt.allowed)
			if err != nil {
				t.Fatal(err)
			}
			err = get(t, policy.HTTPClient(tlsConfig, tt.allowPlainHTTP), tt.url)
			if tt.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("got %v, want an error containing %q", err, tt.wantErr)
			}
			if plainHits.Load() != tt.wantPlainHits || secureHits.Load() != tt.wantSecureHits {
				t.Errorf("requests reached: plain %d, TLS %d; want %d, %d", plainHits.Load(), secureHits.Load(), tt.wantPlainHits, tt.wantSecureHits)
			}
		})
	}
}

func TestHTTPClientUsesNoProxy(t *testing.T) {
	// Loopback never goes through a proxy, so this is checked on the
	// transport rather than by a request.
	t.Setenv("HTTPS_PROXY", "http://proxy.example.com:3128")
	client := (&Policy{}).HTTPClient(nil, false)
	checked, ok := client.Transport.(*checkedTransport)
	if !ok {
		t.Fatalf("the transport is a %T, not the policy's", client.Transport)
	}
	transport, ok := checked.next.(*http.Transport)
	if !ok {
		t.Fatalf("the policy wraps a %T", checked.next)
	}
	if transport.Proxy != nil {
		t.Error("the transport has a proxy function")
	}
	if transport.DialContext == nil {
		t.Error("the transport dials without the policy's dialer")
	}
}

func TestUnrestricted(t *testing.T) {
	plain, hits := server(t, false)
	p := Unrestricted()
	for _, host := range []string{"127.0.0.1:5000", "169.254.169.254", "metadata.google.internal", "registry.example.com"} {
		if err := p.CheckHost(host, "80", true); err != nil {
			t.Errorf("CheckHost(%s): %v", host, err)
		}
	}
	if err := p.CheckDial("127.0.0.1:5000"); err != nil {
		t.Errorf("CheckDial: %v", err)
	}
	if err := get(t, p.HTTPClient(nil, false), plain.URL); err == nil || !strings.Contains(err.Error(), "plain HTTP was not asked for") {
		t.Errorf("plain HTTP without asking: %v", err)
	}
	if err := get(t, p.HTTPClient(nil, true), plain.URL); err != nil {
		t.Errorf("plain HTTP when asked: %v", err)
	}
	if hits.Load() != 1 {
		t.Errorf("%d requests reached the server, want 1", hits.Load())
	}
	transport := p.HTTPClient(nil, false).Transport.(*checkedTransport).next.(*http.Transport)
	if transport.Proxy == nil {
		t.Error("an unrestricted policy ignores the environment's proxy")
	}
}

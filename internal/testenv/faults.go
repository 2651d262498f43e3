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
	"bytes"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
)

// Faults misbehaves between a client and the API server, as a round
// tripper on the client's rest.Config, where a TCP proxy cannot tell a
// watch from a write: it holds back what watches deliver (a cache that lags
// behind the API server), and loses the answer of writes the API server
// made (a timeout after the commit). What it does is drawn from a seed, so
// a run can be told again.
type Faults struct {
	// WatchLag is the most each read of a watch's stream is held back.
	WatchLag time.Duration
	// WriteLag is the most each write is held back before it is sent (a
	// slow API server: runs of a set take longer, and overlap more).
	WriteLag time.Duration
	// LostAnswers is the share of writes whose answer is lost once made.
	LostAnswers float64
	// Matches says which requests misbehave; nil matches every one.
	Matches func(*http.Request) bool

	mu  sync.Mutex
	rng *rand.Rand

	held, lost atomic.Int64
}

// NewFaults draws its faults from seed.
func NewFaults(seed uint64) *Faults {
	return &Faults{rng: rand.New(rand.NewPCG(seed, 0x5eed))}
}

// Wrap returns a copy of cfg whose requests go through f.
func (f *Faults) Wrap(cfg *rest.Config) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &faultTripper{faults: f, next: rt} })
	return out
}

// Held counts the reads of watches held back; Lost the answers lost.
func (f *Faults) Held() int64 { return f.held.Load() }

// Lost counts the writes whose answer was lost after they were made.
func (f *Faults) Lost() int64 { return f.lost.Load() }

// draw returns a number in [0, 1).
func (f *Faults) draw() float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rng.Float64()
}

type faultTripper struct {
	faults *Faults
	next   http.RoundTripper
}

func (t *faultTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	f := t.faults
	if f.Matches != nil && !f.Matches(req) {
		return t.next.RoundTrip(req)
	}
	if writes(req.Method) && f.WriteLag > 0 {
		time.Sleep(time.Duration(f.draw() * float64(f.WriteLag)))
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	switch {
	case req.URL.Query().Get("watch") == "true" && f.WatchLag > 0:
		// A watch that lists first (client-go's streaming list) is held back
		// from the end of its list on: a cache that never fills is not one
		// that lags.
		resp.Body = &laggingBody{ReadCloser: resp.Body, faults: f, listing: req.URL.Query().Get("sendInitialEvents") == "true"}
	case writes(req.Method) && resp.StatusCode < 300 && f.draw() < f.LostAnswers:
		// Made, but the client never hears of it.
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		f.lost.Add(1)
		return nil, &url.Error{Op: req.Method, URL: req.URL.String(),
			Err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}}
	}
	return resp, nil
}

func writes(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// laggingBody holds back each read of a watch's stream for a while: the
// events arrive in order, late. While listing, it reads on until the
// bookmark that ends the list.
type laggingBody struct {
	io.ReadCloser
	faults  *Faults
	listing bool
	tail    []byte
}

// listEnd marks the bookmark that ends the list a watch sends first.
var listEnd = []byte("k8s.io/initial-events-end")

func (b *laggingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && b.listing {
		seen := append(b.tail, p[:n]...)
		b.listing = !bytes.Contains(seen, listEnd)
		b.tail = append(b.tail[:0], seen[max(0, len(seen)-len(listEnd)):]...)
		return n, err
	}
	if n > 0 {
		b.faults.held.Add(1)
		time.Sleep(time.Duration(b.faults.draw() * float64(b.faults.WatchLag)))
	}
	return n, err
}

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

// Package reqcount counts the requests a reconcile makes to the API server,
// so that the figures of each of its steps say how many requests it made
// beside how long it took. A request is counted by the Counter its context
// carries; an informer's lists and watches carry none and are not counted.
package reqcount

import (
	"context"
	"net/http"
	"sync/atomic"

	"k8s.io/client-go/rest"
)

// Counter counts the requests made with a context that carries it.
type Counter struct {
	made  atomic.Int64
	taken atomic.Int64
}

type key struct{}

// Into returns ctx carrying a new Counter, and that Counter.
func Into(ctx context.Context) (context.Context, *Counter) {
	c := &Counter{}
	return context.WithValue(ctx, key{}, c), c
}

// From returns the Counter ctx carries; nil when none.
func From(ctx context.Context) *Counter {
	c, _ := ctx.Value(key{}).(*Counter)
	return c
}

// Take returns the requests made since the last Take (since Into, at
// first). A nil Counter has made none.
func (c *Counter) Take() int64 {
	if c == nil {
		return 0
	}
	made := c.made.Load()
	return made - c.taken.Swap(made)
}

// WrapConfig counts each request made with cfg in the Counter of the
// request's context. Configs copied from cfg count too.
func WrapConfig(cfg *rest.Config) *rest.Config {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return counting{rt} })
	return cfg
}

type counting struct{ next http.RoundTripper }

func (t counting) RoundTrip(req *http.Request) (*http.Response, error) {
	if c := From(req.Context()); c != nil {
		c.made.Add(1)
	}
	return t.next.RoundTrip(req)
}

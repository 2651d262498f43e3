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

// Package ui is `kubectl applyset ui`: a web page, served on the loopback
// address, of every ApplySet parent the user can list and of each set's
// members, read as list and view read them, with the user's kubeconfig.
// Nothing runs in the cluster; guard keeps other sites the user's browser
// opens from using the server's rights.
package ui

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/applysets"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
)

// options are the flags of the ui verb.
type options struct {
	Address string
	Port    int
	Open    bool
	// ListenBeyondLoopback confirms an Address other machines can reach.
	ListenBeyondLoopback bool
	Scope                cli.Within
	// Hosts are where a plan's preview may fetch the set's artifacts from.
	Hosts applysets.ArtifactHosts
	// TokenInURL asks for the run's token to read pages too.
	TokenInURL bool
	// ReadOnly serves no Approve button and refuses approvals.
	ReadOnly bool
}

// shutdownGrace is how long requests under way may take to end once the
// server is told to stop.
const shutdownGrace = 5 * time.Second

// checkAddress refuses an address other machines can reach unless the
// user confirmed it: the server reads and will write with the user's rights.
func checkAddress(o options) error {
	if o.Port < 0 || o.Port > 65535 {
		return fmt.Errorf("--port %d: want 0 (any free port) to 65535", o.Port)
	}
	if o.Address == localhost {
		return nil
	}
	ip := net.ParseIP(o.Address)
	if ip == nil {
		return fmt.Errorf("--address %q: want an IP address, e.g. 127.0.0.1 or ::1", o.Address)
	}
	if !ip.IsLoopback() && !o.ListenBeyondLoopback {
		return fmt.Errorf("--address %s can be reached from other machines, and the page acts with your Kubernetes rights: "+
			"add --listen-beyond-loopback if that is what you want", o.Address)
	}
	if ip.IsUnspecified() {
		return fmt.Errorf("--address %s: name the one address the page is opened by; requests must name it in their Host header", o.Address)
	}
	return nil
}

// serve serves the pages until ctx ends, then stops gracefully. The first
// line it writes to out is the URL to open.
func serve(ctx context.Context, out, errOut io.Writer, c *cli.Clients, o options) error {
	if err := checkAddress(o); err != nil {
		return err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", net.JoinHostPort(o.Address, strconv.Itoa(o.Port)))
	if err != nil {
		return err
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	extra := "" // the one address beyond loopback the user confirmed
	if o.Address != localhost && !net.ParseIP(o.Address).IsLoopback() {
		extra = o.Address
	}
	token, readSecret, base := newToken(), "", ""
	if o.TokenInURL || extra != "" {
		// Beyond loopback anyone who reaches the port could read a page,
		// and with it the write token: reading needs a secret of its own,
		// which begins every path.
		readSecret = newToken()
		base = "/" + readSecret
	}
	pages, err := newPages(c, o, token, base, errOut)
	if err != nil {
		_ = ln.Close()
		return err
	}
	var waiting unusedConns
	g := newGuard(port, extra, token, pages.routes())
	g.readSecret = readSecret
	srv := &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second,
		// Requests end with the server: a page's stream of changes never would.
		BaseContext: func(net.Listener) context.Context { return ctx },
		ConnState:   waiting.track}
	url := "http://" + net.JoinHostPort(o.Address, port) + base + "/"
	fmt.Fprintln(out, url)
	fmt.Fprintln(out, "Serving ApplySets as the user of your kubeconfig; press Ctrl-C to stop.")
	if o.Open {
		cleanup := openBrowser(errOut, url, readSecret != "")
		defer cleanup()
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	// A browser opens connections ahead of the requests it may make; the
	// server would wait for those as long as for requests under way.
	waiting.closeAll()
	if err := srv.Shutdown(stop); err != nil {
		return fmt.Errorf("stopping the server: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// unusedConns are the connections that have not sent a request yet.
type unusedConns struct {
	mu      sync.Mutex
	conns   map[net.Conn]bool
	closing bool // the server stops: a connection accepted now is closed at once
}

// track is the server's ConnState hook.
func (u *unusedConns) track(c net.Conn, state http.ConnState) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if state != http.StateNew {
		delete(u.conns, c)
		return
	}
	if u.closing {
		_ = c.Close() // accepted as the server stops: it would hold the stop up
		return
	}
	if u.conns == nil {
		u.conns = map[net.Conn]bool{}
	}
	u.conns[c] = true
}

// closeAll closes the connections that have not sent a request yet, and
// any accepted from now on.
func (u *unusedConns) closeAll() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.closing = true
	for c := range u.conns {
		_ = c.Close() // it carries nothing; closing it ends it either way
	}
	clear(u.conns)
}

// openBrowser opens url in the user's browser, if it can; the printed URL
// is there when it cannot. A URL that carries a secret is not put on the
// browser's command line, which every local user can read: the browser
// opens a file only the user may read that sends it on. The returned
// function removes that file.
func openBrowser(errOut io.Writer, url string, secret bool) func() {
	target, cleanup, err := browserTarget(url, secret)
	if err != nil {
		fmt.Fprintf(errOut, "Warning: could not open a browser (%v); open the URL above yourself\n", err)
		return func() {}
	}
	name, args := "xdg-open", []string{target}
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", target}
	}
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(errOut, "Warning: could not open a browser (%v); open the URL above yourself\n", err)
		return cleanup
	}
	go func() { _ = cmd.Wait() }() // reap it; a browser that fails to start has said so itself
	return cleanup
}

// browserTarget is what the browser is told to open: url itself when it
// carries no secret, otherwise a page in a directory only the user may
// read that redirects to it.
func browserTarget(url string, secret bool) (target string, cleanup func(), err error) {
	if !secret {
		return url, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "kubectl-applyset-ui-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	page := `<!DOCTYPE html><meta charset="utf-8"><meta name="referrer" content="no-referrer">` +
		`<meta http-equiv="refresh" content="0;url=` + html.EscapeString(url) + `"><title>kubectl applyset ui</title>`
	file := filepath.Join(dir, "open.html")
	if err := os.WriteFile(file, []byte(page), 0o600); err != nil {
		cleanup()
		return "", nil, err
	}
	return file, cleanup, nil
}

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

package fluxsource

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
)

// ErrHostRefused marks an artifact URL whose host the policy does not allow:
// an admin's flag can change that, unlike the URL's other faults.
var ErrHostRefused = errors.New("host not allowed")

// ErrForeignPath marks an artifact URL outside its object's own directory
// of source-controller's storage. A tenant who may write the status of a
// source object chooses its URL; were any path of an allowed host good, a
// URL could name another namespace's artifact there, and a set would read
// what its identity may not.
var ErrForeignPath = errors.New("the url is not under its object's own path")

// ExternalArtifact is the kind whose producer may serve its artifacts from
// a host that does not store them as source-controller does.
const ExternalArtifact = "ExternalArtifact"

// Owner is the source object whose status names an artifact.
type Owner struct {
	Kind, Namespace, Name string
}

// String names o as messages do: GitRepository team-a/app.
func (o Owner) String() string { return fmt.Sprintf("%s %s/%s", o.Kind, o.Namespace, o.Name) }

// Dir is the directory, with its slashes, where source-controller serves
// o's artifacts: /<kind>/<namespace>/<name>/, the kind lower-cased, as its
// storage's ArtifactDir writes it (and Flux's source-watcher for the
// ExternalArtifacts it produces).
func (o Owner) Dir() string {
	return "/" + strings.ToLower(o.Kind) + "/" + o.Namespace + "/" + o.Name + "/"
}

// Hosts are where artifacts may be fetched from.
type Hosts struct {
	// Policy is the hosts an artifact may be fetched from, at its object's
	// own path only.
	Policy *fetchpolicy.Policy
	// External is the hosts, also allowed by Policy, whose ExternalArtifacts
	// may be fetched from any path: their producer stores artifacts its own
	// way. nil allows none.
	External *fetchpolicy.Policy
}

// CheckURL parses a's URL and checks, before any request, that hosts let
// it be fetched: an http or https URL of an allowed host (ErrHostRefused
// otherwise), whose path is a file of a's object's directory, written
// plainly (ErrForeignPath otherwise), unless it is an ExternalArtifact of
// an External host.
func CheckURL(hosts Hosts, a Artifact) (*url.URL, error) {
	u, err := url.Parse(a.URL)
	if err != nil {
		return nil, fmt.Errorf("the artifact's url: %w", err)
	}
	if err := checkParsed(hosts, a.Owner, u); err != nil {
		return nil, err
	}
	return u, nil
}

// schemeHTTP is the scheme of plain HTTP, which a policy allows apart.
const schemeHTTP = "http"

// checkParsed is CheckURL's check of a parsed URL, also made of every
// redirect.
func checkParsed(hosts Hosts, owner Owner, u *url.URL) error {
	if u.User != nil {
		return fmt.Errorf("%s: an artifact's url holds no credentials", u.Redacted())
	}
	if hosts.Policy == nil {
		return fmt.Errorf("%s: no host policy", u.Redacted())
	}
	var err error
	switch u.Scheme {
	case "https":
		err = hosts.Policy.CheckHost(u.Host, "443", false)
	case schemeHTTP:
		err = hosts.Policy.CheckHost(u.Host, "80", true)
	default:
		return fmt.Errorf("%s: only http and https artifact urls are fetched", u.Redacted())
	}
	if err != nil {
		return fmt.Errorf("%s: %w", u.Redacted(), hostRefused{err})
	}
	if anyPath(hosts, owner, u) {
		return nil
	}
	if err := checkPath(owner, u); err != nil {
		return fmt.Errorf("%s: %w", u.Redacted(), err)
	}
	return nil
}

// anyPath says whether u is an ExternalArtifact's of an External host.
func anyPath(hosts Hosts, owner Owner, u *url.URL) bool {
	if owner.Kind != ExternalArtifact || hosts.External == nil {
		return false
	}
	port := "443"
	if u.Scheme == schemeHTTP {
		port = "80"
	}
	// Plain HTTP is Policy's to allow; External only frees the path.
	return hosts.External.CheckHost(u.Host, port, false) == nil
}

// checkPath checks that u names a file of owner's directory, and says so
// plainly (plainPath).
func checkPath(owner Owner, u *url.URL) error {
	if owner.Kind == "" || owner.Namespace == "" || owner.Name == "" {
		return fmt.Errorf("%w: the artifact's object is not named", ErrForeignPath)
	}
	if err := plainPath(u); err != nil {
		return fmt.Errorf("%w: %w", ErrForeignPath, err)
	}
	dir := owner.Dir()
	file, ok := strings.CutPrefix(u.Path, dir)
	if !ok || file == "" || strings.Contains(file, "/") {
		return fmt.Errorf("%w: Flux serves %s's artifacts at %s<file>", ErrForeignPath, owner, dir)
	}
	return nil
}

// plainPath checks that what a server reads of u is its path as written:
// no query or fragment, no escape a server could decode into another path
// (%2F, %2e%2e, and %252e, which is %2e to a proxy that decodes once), and
// nothing cleaning would change (.., //).
func plainPath(u *url.URL) error {
	switch {
	case u.Opaque != "":
		return errors.New("an opaque url has no path")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return errors.New("source-controller's urls have no query or fragment")
	case u.EscapedPath() != (&url.URL{Path: u.Path}).EscapedPath():
		return errors.New("its path is escaped where it need not be")
	case strings.ContainsAny(u.Path, `\%`) || u.Path != path.Clean(u.Path):
		return errors.New("its path is not clean")
	}
	return nil
}

// checkRedirects makes client refuse a redirect to another host, or one
// checkParsed refuses: the first URL passed, and where it leads must too.
func checkRedirects(client *http.Client, hosts Hosts, owner Owner) {
	next := client.CheckRedirect
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if next != nil {
			if err := next(req, via); err != nil {
				return err
			}
		}
		if first := via[0].URL; !strings.EqualFold(req.URL.Host, first.Host) {
			return fmt.Errorf("%s: a redirect from %s leaves its host", req.URL.Redacted(), first.Redacted())
		}
		return checkParsed(hosts, owner, req.URL)
	}
}

// hostRefused is a host the policy refuses; it reads as the error it wraps.
type hostRefused struct{ error }

func (e hostRefused) Unwrap() error { return e.error }

func (e hostRefused) Is(target error) bool { return target == ErrHostRefused }

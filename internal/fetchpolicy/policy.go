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

// Package fetchpolicy decides where sets may fetch from: the hosts an admin
// allows, whether plain HTTP is allowed to them, and the addresses no fetch
// may reach unless an admin names them, such as a cloud's metadata service.
//
// A fetch is checked twice: the host of every request (the registry, its
// token service, any redirect) against the allowed hosts, and the address
// every connection dials after DNS resolution against the special
// addresses, so a name that resolves, or is rebound, to one is refused.
package fetchpolicy

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// Policy is the hosts fetches may reach. The zero Policy allows none.
type Policy struct {
	rules []rule
	// unrestricted allows every host and address (Unrestricted).
	unrestricted bool
}

// Unrestricted is the policy of a command a person runs on their own
// machine, such as kubectl applyset push: it reaches what they can reach
// anyway, so every host and address is allowed, plain HTTP where the
// caller asks for it, through the environment's proxy. Never the
// operator's: there the fetch is a request made on a tenant's behalf.
func Unrestricted() *Policy {
	return &Policy{unrestricted: true}
}

// AllowsEveryHost says whether p is Unrestricted: what it refuses is then
// the URL itself, never its host, and no admin's flag lets it in.
func (p *Policy) AllowsEveryHost() bool {
	return p != nil && p.unrestricted
}

// rule is one allowed host: a DNS name, a "*." wildcard over the names
// below a domain, or an IP address; with a port, that port only.
type rule struct {
	entry     string
	name      string // lower case, no trailing dot; for a wildcard, ".domain"
	wildcard  bool
	addr      netip.Addr // valid when the host is an IP address
	port      string
	plainHTTP bool
}

// Parse reads the allowed hosts, one an entry, as an admin writes them in
// a flag: `[http://]host[:port]`, where host is a DNS name, a "*." wildcard
// such as *.example.com (which matches a.example.com and a.b.example.com,
// not example.com), an IPv4 address or a bracketed IPv6 address. The
// http:// prefix allows plain HTTP to the host as well as HTTPS; https://
// may be written for clarity. Without a port, every port of the host is
// allowed.
func Parse(entries []string) (*Policy, error) {
	p := &Policy{}
	for _, entry := range entries {
		r, err := parseRule(entry)
		if err != nil {
			return nil, fmt.Errorf("allowed host %q: %w", entry, err)
		}
		p.rules = append(p.rules, r)
	}
	return p, nil
}

func parseRule(entry string) (rule, error) {
	r := rule{entry: entry}
	rest := strings.TrimSpace(entry)
	switch {
	case strings.HasPrefix(rest, "http://"):
		r.plainHTTP, rest = true, strings.TrimPrefix(rest, "http://")
	case strings.HasPrefix(rest, "https://"):
		rest = strings.TrimPrefix(rest, "https://")
	case strings.Contains(rest, "://"):
		return rule{}, fmt.Errorf("only http:// and https:// may prefix a host")
	}
	if strings.ContainsAny(rest, "/@?#") {
		return rule{}, fmt.Errorf("a host only: no path, user, query or fragment")
	}
	host, port, err := splitHostPort(rest)
	if err != nil {
		return rule{}, err
	}
	r.port = port
	if addr, err := parseAddr(host); err == nil {
		r.addr = addr
		return r, nil
	}
	if strings.HasPrefix(host, "*.") {
		r.wildcard, host = true, host[1:]
	}
	name := normalizeName(host)
	if err := validateName(strings.TrimPrefix(name, ".")); err != nil {
		return rule{}, err
	}
	r.name = name
	return r, nil
}

// splitHostPort splits host[:port], the port being optional.
func splitHostPort(hostport string) (string, string, error) {
	if hostport == "" {
		return "", "", fmt.Errorf("empty host")
	}
	if strings.HasPrefix(hostport, "[") || strings.Count(hostport, ":") == 1 {
		host, port, err := net.SplitHostPort(hostport)
		if err != nil {
			if strings.HasPrefix(hostport, "[") && strings.HasSuffix(hostport, "]") {
				return hostport[1 : len(hostport)-1], "", nil
			}
			return "", "", err
		}
		if err := validatePort(port); err != nil {
			return "", "", err
		}
		return host, port, nil
	}
	if strings.Contains(hostport, ":") {
		return "", "", fmt.Errorf("an IPv6 address must be written in brackets")
	}
	return hostport, "", nil
}

func validatePort(port string) error {
	if port == "" || len(port) > 5 || strings.Trim(port, "0123456789") != "" {
		return fmt.Errorf("invalid port %q", port)
	}
	return nil
}

// parseAddr reads an IP address, refusing IPv6 zones, which name an
// interface of this machine rather than a host.
func parseAddr(host string) (netip.Addr, error) {
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, err
	}
	if addr.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("IPv6 zones are not allowed")
	}
	return addr.Unmap(), nil
}

// normalizeName lower-cases a DNS name and drops its trailing dot, so that
// EXAMPLE.com. and example.com are one host.
func normalizeName(name string) string {
	return strings.TrimSuffix(strings.ToLower(name), ".")
}

func validateName(name string) error {
	if name == "" || len(name) > 253 {
		return fmt.Errorf("invalid host name %q", name)
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return fmt.Errorf("invalid host name %q", name)
		}
		if strings.Trim(label, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return fmt.Errorf("invalid host name %q", name)
		}
	}
	return nil
}

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
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// metadataNames are the host names of cloud metadata services; a wildcard
// never allows them, only an entry that names them.
var metadataNames = map[string]bool{
	"metadata.google.internal": true,
	"metadata.goog":            true,
	"metadata":                 true,
}

// metadataAddrs are the addresses of cloud metadata services that are not
// link-local, and so not refused by their range.
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("fd00:ec2::254"):   true, // AWS over IPv6
	netip.MustParseAddr("100.100.100.200"): true, // Alibaba Cloud
}

// translatedPrefixes hold IPv6 addresses that carry an IPv4 address a
// gateway translates to: NAT64 (RFC 6052) and 6to4 (RFC 3056).
var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

// isSpecialAddress tells whether addr is one no fetch may reach unless an
// allowed host names that very address: loopback, link-local (which holds
// 169.254.169.254, the metadata service of most clouds), multicast,
// unspecified, or another cloud metadata address, also when written as an
// IPv4-mapped, NAT64 or 6to4 IPv6 address. Private ranges are not special:
// in-cluster registries live there.
func isSpecialAddress(addr netip.Addr) bool {
	addr = addr.Unmap()
	if embedded, ok := embeddedIPv4(addr); ok && isSpecialAddress(embedded) {
		return true
	}
	return addr.IsLoopback() || addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() ||
		addr.IsInterfaceLocalMulticast() || addr.IsMulticast() || addr.IsUnspecified() || metadataAddrs[addr]
}

// embeddedIPv4 is the IPv4 address a NAT64 or 6to4 address stands for.
func embeddedIPv4(addr netip.Addr) (netip.Addr, bool) {
	b := addr.As16()
	switch {
	case !addr.Is6():
		return netip.Addr{}, false
	case nat64Prefix.Contains(addr):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case sixToFour.Contains(addr):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	}
	return netip.Addr{}, false
}

// CheckHost checks a request's host[:port] (as in a URL; defaultPort is
// used when it has none) and whether it would travel over plain HTTP.
func (p *Policy) CheckHost(hostport, defaultPort string, plainHTTP bool) error {
	host, port, err := hostAndPort(hostport, defaultPort)
	if err != nil {
		return fmt.Errorf("host %q: %w", hostport, err)
	}
	r, ok := p.match(host, port)
	if !ok {
		return fmt.Errorf("host %q is not among the hosts sets may fetch from", hostport)
	}
	if plainHTTP && !r.plainHTTP {
		return fmt.Errorf("host %q may be reached over HTTPS only (allowed as %q)", hostport, r.entry)
	}
	return nil
}

// CheckDial checks the address a connection is about to dial, after DNS
// resolution: a special address must be named by an allowed host itself.
func (p *Policy) CheckDial(address string) error {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("dialing %q: %w", address, err)
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("dialing %q: not an IP address: %w", address, err)
	}
	addr = addr.Unmap()
	if p.unrestricted || !isSpecialAddress(addr) {
		return nil
	}
	for _, r := range p.rules {
		if r.addr.IsValid() && r.addr == addr && (r.port == "" || r.port == port) {
			return nil
		}
	}
	return fmt.Errorf("dialing %q: loopback, link-local and metadata addresses are refused unless allowed by address", address)
}

// match finds the first rule that allows host:port. A special address, or
// a metadata service's name, is allowed only by a rule that names it.
func (p *Policy) match(host, port string) (rule, bool) {
	if p.unrestricted {
		return rule{entry: "*", plainHTTP: true}, true
	}
	if addr, err := parseAddr(host); err == nil {
		for _, r := range p.rules {
			if r.addr.IsValid() && r.addr == addr && portMatches(r, port) {
				return r, true
			}
		}
		return rule{}, false
	}
	name := normalizeName(host)
	for _, r := range p.rules {
		if r.addr.IsValid() || !portMatches(r, port) {
			continue
		}
		if r.name == name || (r.wildcard && strings.HasSuffix(name, r.name) && !metadataNames[name]) {
			return r, true
		}
	}
	return rule{}, false
}

func portMatches(r rule, port string) bool {
	return r.port == "" || r.port == port
}

func hostAndPort(hostport, defaultPort string) (string, string, error) {
	if hostport == "" {
		return "", "", fmt.Errorf("empty host")
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port: a name, an IPv4 address or a bracketed IPv6 address.
		host, port = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), defaultPort
	}
	if port == "" {
		port = defaultPort
	}
	return host, port, nil
}

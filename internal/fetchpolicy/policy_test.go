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
	"strings"
	"testing"
)

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		entry   string
		wantErr string
	}{
		{"", "empty host"},
		{"ftp://example.com", "only http:// and https://"},
		{"example.com/path", "a host only"},
		{"user@example.com", "a host only"},
		{"example.com:http", "invalid port"},
		{"example.com:123456", "invalid port"},
		{"fe80::1", "brackets"},
		{"[fe80::1%eth0]", "invalid host name"},
		{"*", "invalid host name"},
		{"*.", "invalid host name"},
		{"a.*.example.com", "invalid host name"},
		{"-bad.example.com", "invalid host name"},
		{"exa mple.com", "invalid host name"},
	}
	for _, tt := range tests {
		t.Run(tt.entry, func(t *testing.T) {
			_, err := Parse([]string{"ok.example.com", tt.entry})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "allowed host") {
				t.Fatalf("got %v, want an error naming the entry and containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestCheckHost(t *testing.T) {
	policy, err := Parse([]string{
		"registry.example.com",
		"*.mirror.example.com",
		"http://127.0.0.1:5000",
		"[::1]:5001",
		"10.0.0.7",
		"metadata.google.internal",
		"Upper.Example.COM.",
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host      string
		plainHTTP bool
		wantErr   string
	}{
		{host: "registry.example.com"},
		{host: "registry.example.com:8443"},
		{host: "REGISTRY.example.com."},
		{host: "registry.example.com", plainHTTP: true, wantErr: "HTTPS only"},
		{host: "a.mirror.example.com"},
		{host: "a.b.mirror.example.com"},
		{host: "mirror.example.com", wantErr: "not among"},
		{host: "evilmirror.example.com", wantErr: "not among"},
		{host: "registry.example.com.evil.org", wantErr: "not among"},
		{host: "127.0.0.1:5000", plainHTTP: true},
		{host: "127.0.0.1:5001", wantErr: "not among"},
		{host: "127.0.0.1", wantErr: "not among"},
		{host: "[::1]:5001"},
		{host: "[::1]:5001", plainHTTP: true, wantErr: "HTTPS only"},
		{host: "[::ffff:10.0.0.7]:443"},
		{host: "10.0.0.7:443"},
		{host: "10.0.0.8", wantErr: "not among"},
		{host: "169.254.169.254", wantErr: "not among"},
		{host: "metadata.google.internal"},
		{host: "upper.example.com"},
		{host: "", wantErr: "empty host"},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			err := policy.CheckHost(tt.host, "443", tt.plainHTTP)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestWildcardsNeverAllowMetadataNames(t *testing.T) {
	policy, err := Parse([]string{"*.internal", "*.goog"})
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"metadata.google.internal", "metadata.goog"} {
		if err := policy.CheckHost(host, "80", false); err == nil {
			t.Errorf("a wildcard allowed %s", host)
		}
	}
	if err := policy.CheckHost("registry.internal", "443", false); err != nil {
		t.Errorf("the wildcard did not allow an ordinary name: %v", err)
	}
}

func TestCheckDial(t *testing.T) {
	policy, err := Parse([]string{"*.example.com", "127.0.0.1:5000", "169.254.10.10"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		address string
		allowed bool
	}{
		{"10.1.2.3:443", true},
		{"192.168.1.1:443", true},
		{"203.0.113.9:443", true},
		{"127.0.0.1:5000", true},
		{"127.0.0.1:5001", false},
		{"127.0.0.2:443", false},
		{"[::1]:443", false},
		{"[::ffff:127.0.0.1]:5000", true},
		{"[::ffff:127.0.0.1]:22", false},
		{"169.254.169.254:80", false},
		{"169.254.10.10:80", true},
		{"[fe80::1]:443", false},
		{"[fd00:ec2::254]:80", false},
		{"100.100.100.200:80", false},
		{"0.0.0.0:443", false},
		{"[::]:443", false},
		{"224.0.0.1:443", false},
		{"[64:ff9b::a9fe:a9fe]:80", false},
		{"[64:ff9b::a00:1]:443", true},
		{"[2002:7f00:1::]:443", false},
		{"[2002:a00:1::]:443", true},
		{"not-an-address", false},
	}
	for _, tt := range tests {
		t.Run(tt.address, func(t *testing.T) {
			err := policy.CheckDial(tt.address)
			if tt.allowed && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tt.allowed && (err == nil || !strings.Contains(err.Error(), tt.address)) {
				t.Fatalf("got %v, want a refusal naming the address", err)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, seed := range []string{"registry.example.com", "*.example.com", "http://127.0.0.1:5000", "[::1]:80", "https://a.b", "x:y:z", "[fe80::1%25eth0]"} {
		f.Add(seed, "a.example.com:443")
	}
	f.Fuzz(func(t *testing.T, entry, host string) {
		policy, err := Parse([]string{entry})
		if err != nil {
			return
		}
		if len(policy.rules) != 1 {
			t.Fatalf("one entry gave %d rules", len(policy.rules))
		}
		r := policy.rules[0]
		if !r.addr.IsValid() && r.name == "" {
			t.Fatalf("entry %q gave a rule with neither address nor name", entry)
		}
		// Whatever the host, checking never panics, and a host refused over
		// HTTPS is refused over plain HTTP too.
		if policy.CheckHost(host, "443", false) != nil && policy.CheckHost(host, "443", true) == nil {
			t.Fatalf("host %q allowed over plain HTTP but not HTTPS by %q", host, entry)
		}
		_ = policy.CheckDial(host)
	})
}

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

package ociartifact

import (
	"strings"
	"testing"

	"oras.land/oras-go/v2/registry/remote/auth"
)

func TestCredentialFor(t *testing.T) {
	tests := []struct {
		name    string
		config  string
		host    string
		want    auth.Credential
		wantErr string
	}{{
		name:   "username and password",
		config: `{"auths":{"registry.example.com":{"username":"u","password":"p"}}}`,
		host:   "registry.example.com",
		want:   auth.Credential{Username: "u", Password: "p"},
	}, {
		name:   "auth, keyed by URL",
		config: `{"auths":{"https://registry.example.com/v1/":{"auth":"dTpwOmFmdGVyLWNvbG9u"}}}`,
		host:   "registry.example.com",
		want:   auth.Credential{Username: "u", Password: "p:after-colon"},
	}, {
		name:   "host and port",
		config: `{"auths":{"registry.example.com":{"username":"wrong"},"127.0.0.1:5000":{"username":"u","password":"p"}}}`,
		host:   "127.0.0.1:5000",
		want:   auth.Credential{Username: "u", Password: "p"},
	}, {
		name:   "identity token",
		config: `{"auths":{"Registry.Example.com":{"username":"00000000-0000-0000-0000-000000000000","identitytoken":"tok"}}}`,
		host:   "registry.example.com",
		want:   auth.Credential{Username: "00000000-0000-0000-0000-000000000000", RefreshToken: "tok"},
	}, {
		name:   "Docker Hub under its legacy key",
		config: `{"auths":{"https://index.docker.io/v1/":{"username":"u","password":"p"}}}`,
		host:   "registry-1.docker.io",
		want:   auth.Credential{Username: "u", Password: "p"},
	}, {
		name:    "another host only",
		config:  `{"auths":{"registry.example.com":{"username":"u","password":"p"}}}`,
		host:    "registry.example.com:5000",
		wantErr: "holds no credentials for registry.example.com:5000 (it holds registry.example.com)",
	}, {
		name:    "a prefix of the host is not the host",
		config:  `{"auths":{"registry.example.com.evil.org":{"username":"u","password":"p"}}}`,
		host:    "registry.example.com",
		wantErr: "holds no credentials",
	}, {
		name:    "auth that is not base64",
		config:  `{"auths":{"r.example.com":{"auth":"%%%"}}}`,
		host:    "r.example.com",
		wantErr: `auths["r.example.com"].auth`,
	}, {
		name:    "auth without a colon",
		config:  `{"auths":{"r.example.com":{"auth":"dXNlcg=="}}}`,
		host:    "r.example.com",
		wantErr: "not user:password",
	}, {
		name:    "auth with nothing around the colon",
		config:  `{"auths":{"r.example.com":{"auth":"Og=="}}}`,
		host:    "r.example.com",
		wantErr: "not user:password",
	}, {
		name:    "an empty entry",
		config:  `{"auths":{"r.example.com":{}}}`,
		host:    "r.example.com",
		wantErr: "no username, password, auth or identitytoken",
	}, {
		name:    "not JSON",
		config:  `auths: {}`,
		host:    "r.example.com",
		wantErr: ".dockerconfigjson",
	}, {
		name:    "too large",
		config:  `{"auths":{},"x":"` + strings.Repeat("x", maxDockerConfigBytes) + `"}`,
		host:    "r.example.com",
		wantErr: "larger than",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := credentialFor([]byte(tt.config), tt.host)
			if tt.wantErr != "" {
				wantErr(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func FuzzCredentialFor(f *testing.F) {
	f.Add([]byte(`{"auths":{"registry.example.com":{"username":"u","password":"p"}}}`), "registry.example.com")
	f.Add([]byte(`{"auths":{"https://index.docker.io/v1/":{"auth":"dTpw"}}}`), "docker.io")
	f.Add([]byte(`{"auths":{"h":{"identitytoken":"t"}}}`), "h")
	f.Add([]byte(`{"auths":{"h":{"auth":"Og=="}}}`), "h")
	f.Fuzz(func(t *testing.T, config []byte, host string) {
		cred, err := credentialFor(config, host)
		if err != nil {
			return
		}
		if cred == (auth.Credential{}) {
			t.Fatalf("an empty credential for %q from %q", host, config)
		}
	})
}

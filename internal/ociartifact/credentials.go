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
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"oras.land/oras-go/v2/registry/remote/auth"
)

// maxDockerConfigBytes is the most a Secret can hold.
const maxDockerConfigBytes = 1 << 20

// dockerConfig is the .dockerconfigjson of a kubernetes.io/dockerconfigjson
// Secret.
type dockerConfig struct {
	Auths map[string]dockerAuth `json:"auths"`
}

type dockerAuth struct {
	Username      string `json:"username"`
	Password      string `json:"password"`
	Auth          string `json:"auth"`
	IdentityToken string `json:"identitytoken"`
}

// dockerHubHosts are the names Docker Hub's credentials are kept under.
var dockerHubHosts = map[string]bool{"docker.io": true, "index.docker.io": true, "registry-1.docker.io": true}

// credentialFor reads the credential for host (host[:port]) from the bytes
// of a .dockerconfigjson. A config that holds none for the host is an
// error: a Secret given for a registry it does not cover is a mistake that
// would otherwise surface as a puzzling refusal from the registry.
func credentialFor(dockerConfigJSON []byte, host string) (auth.Credential, error) {
	if len(dockerConfigJSON) > maxDockerConfigBytes {
		return auth.Credential{}, fmt.Errorf(".dockerconfigjson is larger than %d bytes", maxDockerConfigBytes)
	}
	var config dockerConfig
	if err := json.Unmarshal(dockerConfigJSON, &config); err != nil {
		return auth.Credential{}, fmt.Errorf(".dockerconfigjson: %w", err)
	}
	want := strings.ToLower(host)
	for _, key := range sortedAuthKeys(config.Auths) {
		got := configHost(key)
		if got == want || (dockerHubHosts[got] && dockerHubHosts[want]) {
			return credentialFrom(key, config.Auths[key])
		}
	}
	return auth.Credential{}, fmt.Errorf(".dockerconfigjson holds no credentials for %s (it holds %s)", host, strings.Join(sortedAuthKeys(config.Auths), ", "))
}

// configHost reads the host of a key of auths, which docker writes as a
// host, a host:port or a URL such as https://index.docker.io/v1/.
func configHost(key string) string {
	key = strings.ToLower(strings.TrimSpace(key))
	if strings.Contains(key, "://") {
		if u, err := url.Parse(key); err == nil {
			return u.Host
		}
	}
	host, _, _ := strings.Cut(key, "/")
	return host
}

func credentialFrom(key string, a dockerAuth) (auth.Credential, error) {
	if a.IdentityToken != "" {
		return auth.Credential{Username: a.Username, RefreshToken: a.IdentityToken}, nil
	}
	if a.Username != "" || a.Password != "" {
		return auth.Credential{Username: a.Username, Password: a.Password}, nil
	}
	if a.Auth == "" {
		return auth.Credential{}, fmt.Errorf(".dockerconfigjson auths[%q]: no username, password, auth or identitytoken", key)
	}
	decoded, err := base64.StdEncoding.DecodeString(a.Auth)
	if err != nil {
		return auth.Credential{}, fmt.Errorf(".dockerconfigjson auths[%q].auth: %w", key, err)
	}
	user, pass, ok := strings.Cut(string(decoded), ":")
	if !ok || (user == "" && pass == "") {
		return auth.Credential{}, fmt.Errorf(".dockerconfigjson auths[%q].auth: not user:password", key)
	}
	return auth.Credential{Username: user, Password: pass}, nil
}

func sortedAuthKeys(auths map[string]dockerAuth) []string {
	keys := make([]string, 0, len(auths))
	for k := range auths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

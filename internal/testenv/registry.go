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
	"encoding/base64"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/google/go-containerregistry/pkg/registry"
)

// RegistryHandler is an in-memory OCI registry that logs nothing. With
// passwords, it serves only the requests of those users with their
// passwords, and asks any other for basic authentication.
func RegistryHandler(passwords map[string]string) http.Handler {
	handler := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	if len(passwords) == 0 {
		return handler
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || passwords[u] == "" || passwords[u] != p {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	})
}

// Registry serves RegistryHandler(passwords) on loopback over plain HTTP,
// and returns its host and what stops it.
func Registry(passwords map[string]string) (host string, stop func()) {
	srv := httptest.NewServer(RegistryHandler(passwords))
	return strings.TrimPrefix(srv.URL, "http://"), srv.Close
}

// DockerConfig is a docker config.json, and a Secret's .dockerconfigjson,
// holding user:password for host.
func DockerConfig(host, user, password string) []byte {
	auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	data, err := json.Marshal(map[string]any{"auths": map[string]any{host: map[string]string{"auth": auth}}})
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return data
}

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
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/netip"

	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
)

// userAgent names the operator to registries.
const userAgent = "applyset-operator"

// Options say how to reach a registry.
type Options struct {
	// Policy decides which hosts may be reached, and how. Required.
	Policy *fetchpolicy.Policy
	// DockerConfigJSON is the .dockerconfigjson of a
	// kubernetes.io/dockerconfigjson Secret; empty for anonymous access.
	// No other credential is ever used: no keychain, environment variable
	// or docker config file.
	DockerConfigJSON []byte
	// UserDockerConfig reads credentials as docker does for the person who
	// runs a command such as kubectl applyset push: from DOCKER_CONFIG or
	// ~/.docker/config.json, and the credential helpers it names. Never for
	// the operator, whose credentials would then serve every tenant. It
	// cannot be set with DockerConfigJSON.
	UserDockerConfig bool
	// CAPEM holds PEM certificates trusted besides the system's roots.
	CAPEM []byte
	// Insecure reaches the registry over plain HTTP, which the policy must
	// allow for the host.
	Insecure bool
}

// repository makes the oras client of repo, after checking the policy lets
// it be reached at all, so that a refused host sees no request.
func (o Options) repository(repo Repository) (*remote.Repository, error) {
	if o.Policy == nil {
		return nil, fmt.Errorf("%s: no host policy", repo)
	}
	port := "443"
	if o.Insecure {
		port = "80"
	}
	if err := o.Policy.CheckHost(repo.Host, port, o.Insecure); err != nil {
		return nil, fmt.Errorf("%s: %w", repo, err)
	}
	tlsConfig, err := o.tlsConfig()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", repo, err)
	}
	client := &auth.Client{
		Client: o.Policy.HTTPClient(tlsConfig, o.Insecure),
		Cache:  auth.NewCache(),
		// The policy's dialer refuses loopback, link-local and metadata
		// addresses unless an admin named them; oras's own list would
		// overrule the admin.
		BlockedRealmPrefixes: []netip.Prefix{},
	}
	client.SetUserAgent(userAgent)
	switch {
	case o.UserDockerConfig && len(o.DockerConfigJSON) > 0:
		return nil, fmt.Errorf("%s: credentials from both a Secret and the user's docker config", repo)
	case o.UserDockerConfig:
		store, err := credentials.NewStoreFromDocker(credentials.StoreOptions{})
		if err != nil {
			return nil, fmt.Errorf("%s: reading the docker config: %w", repo, err)
		}
		client.Credential = credentials.Credential(store)
	case len(o.DockerConfigJSON) > 0:
		cred, err := credentialFor(o.DockerConfigJSON, repo.Host)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", repo, err)
		}
		client.Credential = auth.StaticCredential(repo.Host, cred)
	}
	r, err := remote.NewRepository(repo.Host + "/" + repo.Path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", repo, err)
	}
	r.Client = client
	r.PlainHTTP = o.Insecure
	return r, nil
}

func (o Options) tlsConfig() (*tls.Config, error) {
	if len(o.CAPEM) == 0 {
		return &tls.Config{MinVersion: tls.VersionTLS12}, nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(o.CAPEM) {
		return nil, errors.New("the CA holds no PEM certificate")
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool}, nil
}

// explain turns the registry's refusals into messages that say what to fix.
func explain(ctx context.Context, what string, err error) error {
	if errors.Is(err, auth.ErrBasicCredentialNotFound) {
		return fmt.Errorf("%s: the registry asks for credentials and none were given: %w", what, err)
	}
	var resp *errcode.ErrorResponse
	if errors.As(err, &resp) {
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			return fmt.Errorf("%s: the registry refused the credentials (%d): %w", what, resp.StatusCode, err)
		case http.StatusForbidden:
			return fmt.Errorf("%s: the credentials do not allow this (%d): %w", what, resp.StatusCode, err)
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w (%w)", what, ctx.Err(), err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

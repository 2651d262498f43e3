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

// Package ociartifact pulls sets from, and pushes them to, OCI registries
// as Flux's artifacts: one gzip-compressed tarball layer. Every request
// goes through a fetchpolicy.Policy; credentials come only from the bytes
// of a kubernetes.io/dockerconfigjson Secret the caller passes in.
package ociartifact

import (
	"fmt"
	"strings"

	"github.com/opencontainers/go-digest"
	"oras.land/oras-go/v2/registry"
)

// Scheme prefixes the URL of an OCI repository.
const Scheme = "oci://"

// Repository is an OCI repository, as oci://host[:port]/path names it.
type Repository struct {
	// Host is the registry's host[:port].
	Host string
	// Path is the repository within the registry.
	Path string
}

// String gives back the oci:// URL.
func (r Repository) String() string {
	return Scheme + r.Host + "/" + r.Path
}

// ParseURL reads an oci://host[:port]/repository URL. The tag or digest is
// given apart (see Version), never in the URL.
func ParseURL(url string) (Repository, error) {
	rest, ok := strings.CutPrefix(url, Scheme)
	if !ok {
		return Repository{}, fmt.Errorf("URL %q: must begin with %s", url, Scheme)
	}
	ref, err := registry.ParseReference(rest)
	if err != nil {
		return Repository{}, fmt.Errorf("URL %q: %w", url, err)
	}
	if ref.Reference != "" {
		return Repository{}, fmt.Errorf("URL %q: give the tag or digest apart, not in the URL", url)
	}
	return Repository{Host: ref.Registry, Path: ref.Repository}, nil
}

// Version says which artifact of a repository to pull: a tag, a digest,
// or both, in which case the tag must still point to the digest.
type Version struct {
	Tag    string
	Digest string
}

func (v Version) validate() error {
	if v.Tag == "" && v.Digest == "" {
		return fmt.Errorf("a tag or a digest is needed")
	}
	if v.Tag != "" {
		ref := registry.Reference{Registry: "example.com", Repository: "x", Reference: v.Tag}
		if err := ref.ValidateReferenceAsTag(); err != nil {
			return fmt.Errorf("tag %q: %w", v.Tag, err)
		}
	}
	if v.Digest != "" {
		if _, err := digest.Parse(v.Digest); err != nil {
			return fmt.Errorf("digest %q: %w", v.Digest, err)
		}
	}
	return nil
}

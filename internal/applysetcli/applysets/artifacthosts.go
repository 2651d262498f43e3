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

package applysets

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/applyset-operator/applyset-operator/internal/declared"
	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
)

// ArtifactHosts are where a preview of one of the operator's sets may fetch
// its oci and flux artifacts from. Their urls are chosen by whoever wrote
// the set or the Flux object's status, perhaps another tenant, and are
// fetched from the reviewer's machine: so, as for the operator, nothing is
// fetched unless its host is named.
type ArtifactHosts struct {
	allowed  []string
	external []string
}

// previewAdvice says, in a refusal, which of the command's flags to pass.
var previewAdvice = declared.Advice{
	Fetcher: "this command",
	AllowHosts: "pass --artifact-allowed-hosts with that host to fetch from it here " +
		"(the url is whoever wrote the set or the Flux object's choice)",
	AllowExternal: "pass --external-artifact-hosts with that host, as the operator's admin does for a producer " +
		"that stores ExternalArtifacts its own way, to fetch it from any path of that host",
}

// BindFlags registers --artifact-allowed-hosts and --external-artifact-hosts.
func (h *ArtifactHosts) BindFlags(fs *pflag.FlagSet) {
	fs.StringSliceVar(&h.allowed, "artifact-allowed-hosts", nil,
		"Hosts the oci and flux sources of the operator's sets may be fetched from here, as the operator's flag of that name: "+
			"[http://]host[:port], host a DNS name, a *.example.com wildcard or an IP ([::1] for IPv6); http:// allows plain HTTP too. "+
			"Loopback, link-local and metadata addresses are refused unless named by address, and no proxy is used. "+
			"A flux artifact is fetched only from its object's own path. None by default: no artifact is fetched.")
	fs.StringSliceVar(&h.external, "external-artifact-hosts", nil,
		"Hosts, among --artifact-allowed-hosts, whose ExternalArtifacts may be fetched from any path, as the operator's flag of that name.")
}

// artifacts is how the preview fetches: through the hosts named, saying
// which flag lets a refused one in.
func (h *ArtifactHosts) artifacts() (*declared.Artifacts, error) {
	a := &declared.Artifacts{Advice: previewAdvice}
	var err error
	if len(h.allowed) > 0 {
		if a.Policy, err = fetchpolicy.Parse(h.allowed); err != nil {
			return nil, fmt.Errorf("--artifact-allowed-hosts: %w", err)
		}
	}
	if len(h.external) > 0 {
		if a.Policy == nil {
			return nil, fmt.Errorf("--external-artifact-hosts names hosts, but --artifact-allowed-hosts allows none to fetch from; name them there too")
		}
		if a.ExternalArtifactHosts, err = fetchpolicy.Parse(h.external); err != nil {
			return nil, fmt.Errorf("--external-artifact-hosts: %w", err)
		}
	}
	return a, nil
}

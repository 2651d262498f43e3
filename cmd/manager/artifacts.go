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

package main

import (
	"flag"
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
	"github.com/applyset-operator/applyset-operator/internal/kbuild"
)

// defaultBuildCache holds many builds of the usual size (a few hundred KiB
// of YAML) and a few of the largest public install manifests.
const defaultBuildCache = 64 << 20

// bindArtifactFlags binds where oci and flux sources may fetch from, and
// how their kustomize builds run.
func (o *options) bindArtifactFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.artifactAllowedHosts, "artifact-allowed-hosts", "",
		"Comma-separated hosts oci and flux sources may fetch from: [http://]host[:port], host a DNS name, a *.example.com wildcard or an IP "+
			"([::1] for IPv6); http:// allows plain HTTP too. Loopback, link-local and metadata addresses are refused unless named by address. "+
			"A flux source fetches its object's status.artifact.url, e.g. http://source-controller.flux-system.svc.cluster.local. "+
			"Empty: no oci or flux source fetches. A flux artifact is fetched only from its object's own path, "+
			"/<kind>/<namespace>/<name>/<file> as source-controller serves it, unless --external-artifact-hosts frees its host.")
	fs.StringVar(&o.externalArtifactHosts, "external-artifact-hosts", "",
		"Comma-separated hosts, written as in --artifact-allowed-hosts and allowed by it too, whose ExternalArtifacts may be fetched "+
			"from any path: for producers that do not store them as source-controller does. Whoever may write an ExternalArtifact's "+
			"status then makes sets read anything such a host serves, so name only hosts that serve nothing a tenant may not read. "+
			"Empty: every flux artifact is fetched only from its object's own path.")
	o.maxBuildMemory = *resource.NewQuantity(kbuild.DefaultMaxMemory, resource.BinarySI)
	sizeFlag(fs, &o.maxBuildMemory, "max-build-memory", "The most memory one kustomize build of an oci or flux source may use "+
		"(default 256Mi). Each build runs in a process of its own that ends at this much heap, or at twice it and 64Mi of address "+
		"space, whichever it reaches first: a set whose build needs more stalls with BudgetExceeded.")
	fs.IntVar(&o.maxBuilds, "max-builds", 0,
		"How many kustomize builds of oci and flux sources run at once; the others wait, the namespaces taking turns, without the "+
			"wait counting against --max-reconcile-time (a set whose build waits 5m is tried again later). 0 (the default) runs as many "+
			"as fit in half the container's memory limit, each at --max-build-memory and 64Mi more, from 1 to 4; 1 where no limit is set.")
	o.buildCache = *resource.NewQuantity(defaultBuildCache, resource.BinarySI)
	fs.Func("build-cache-size", "The most bytes of built documents kept for sets that read the same files of an artifact at the "+
		"same path (default 64Mi), so that each such build runs once; 0 keeps none. The key is the files' content, never a name a "+
		"tenant chooses; a build larger than a quarter of this is not kept.", func(value string) error {
		parsed, err := resource.ParseQuantity(value)
		if err != nil || parsed.Sign() < 0 {
			return fmt.Errorf("want a size such as 64Mi, or 0, got %q", value)
		}
		o.buildCache = parsed
		return nil
	})
}

// artifactPolicies reads --artifact-allowed-hosts (nil, when it names no
// host, lets no oci or flux source fetch) and --external-artifact-hosts
// (nil frees no host of the path rule). Hosts freed where none may be
// fetched from are refused: the admin meant something else.
func (o *options) artifactPolicies() (allowed, external *fetchpolicy.Policy, err error) {
	if allowed, err = hostPolicy(o.artifactAllowedHosts, "--artifact-allowed-hosts"); err != nil {
		return nil, nil, err
	}
	if external, err = hostPolicy(o.externalArtifactHosts, "--external-artifact-hosts"); err != nil {
		return nil, nil, err
	}
	if external != nil && allowed == nil {
		return nil, nil, fmt.Errorf("--external-artifact-hosts names hosts, but --artifact-allowed-hosts allows none to fetch from; " +
			"name them there too")
	}
	return allowed, external, nil
}

// hostPolicy reads the hosts of the flag named name; nil when it names none.
func hostPolicy(hosts, name string) (*fetchpolicy.Policy, error) {
	entries := splitList(hosts)
	if len(entries) == 0 {
		return nil, nil
	}
	policy, err := fetchpolicy.Parse(entries)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return policy, nil
}

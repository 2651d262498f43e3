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

package declared

// Advice says, in the message of a refused fetch, who fetches and how a
// host comes to be allowed: the operator's admin sets its flags, while a
// person previewing a set with kubectl applyset passes the command's own.
type Advice struct {
	// Fetcher is who fetches, e.g. "the operator".
	Fetcher string
	// AllowHosts says how a host comes to be allowed.
	AllowHosts string
	// AllowExternal says how an ExternalArtifact comes to be fetched from a
	// path of its host other than its object's.
	AllowExternal string
}

// operatorAdvice speaks of the operator's flags; the zero Advice reads as it.
var operatorAdvice = Advice{
	Fetcher:    "the operator",
	AllowHosts: "an admin allows hosts with the operator's --artifact-allowed-hosts flag",
	AllowExternal: "an admin lets the ExternalArtifacts of a producer that stores them its own way " +
		"be fetched from any path of its host with the operator's --external-artifact-hosts flag",
}

// advice is a's Advice, or the operator's.
func (a *Artifacts) advice() Advice {
	if a == nil || a.Advice.Fetcher == "" {
		return operatorAdvice
	}
	return a.Advice
}

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
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestArtifactHostFlags(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		allowed  string // a host the policy must allow; "" for no policy
		external bool
		wantErr  string
	}{
		{args: nil},
		{args: []string{"--artifact-allowed-hosts=http://127.0.0.1,registry.example.com"}, allowed: "registry.example.com"},
		{args: []string{"--artifact-allowed-hosts=producer.example.com", "--external-artifact-hosts=producer.example.com"},
			allowed: "producer.example.com", external: true},
		{args: []string{"--external-artifact-hosts=producer.example.com"}, wantErr: "--artifact-allowed-hosts allows none"},
		{args: []string{"--artifact-allowed-hosts=example.com/path"}, wantErr: "--artifact-allowed-hosts: allowed host"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var h ArtifactHosts
			fs := pflag.NewFlagSet("diff", pflag.ContinueOnError)
			h.BindFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			a, err := h.artifacts()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want an error saying %q, got %v", tc.wantErr, err)
				}
				return
			}
			switch {
			case err != nil:
				t.Fatal(err)
			case a.Advice != previewAdvice:
				t.Errorf("advice %+v is not the preview's", a.Advice)
			case (a.Policy == nil) != (tc.allowed == ""), a.Policy != nil && a.Policy.CheckHost(tc.allowed, "443", false) != nil:
				t.Errorf("policy %v does not allow %q", a.Policy, tc.allowed)
			case (a.ExternalArtifactHosts != nil) != tc.external:
				t.Errorf("external hosts %v, want some: %v", a.ExternalArtifactHosts, tc.external)
			}
		})
	}
}

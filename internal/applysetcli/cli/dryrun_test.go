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

package cli

import "testing"

func TestDryRunFlag(t *testing.T) {
	tests := []struct {
		value   string
		wantErr bool
		server  bool
	}{
		{value: "none"},
		{value: "server", server: true},
		{value: "client", wantErr: true},
		{value: "true", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			d := DryRun{value: "none"}
			if err := d.Set(tt.value); (err != nil) != tt.wantErr {
				t.Fatalf("Set(%q) = %v, want error %v", tt.value, err, tt.wantErr)
			}
			if tt.wantErr && d.String() != "none" {
				t.Errorf("a refused value changed the flag to %q", d)
			}
			if d.Server() != tt.server || (len(d.Opts()) > 0) != tt.server || (d.Suffix() != "") != tt.server {
				t.Errorf("server %v, opts %v, suffix %q", d.Server(), d.Opts(), d.Suffix())
			}
		})
	}
}

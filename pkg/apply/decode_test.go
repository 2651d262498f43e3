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

package apply

import (
	"strings"
	"testing"

	"github.com/applyset-operator/applyset-operator/internal/testenv"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		wantRefs []string
		wantErr  string
	}{
		{
			name: "documents, comments and empty documents",
			data: "# leading comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\n# only a comment\n---\n" +
				"apiVersion: v1\nkind: Namespace\nmetadata: {name: ns1}\n",
			wantRefs: []string{"ConfigMap a @ src document 2", "Namespace ns1 @ src document 5"},
		},
		{
			name:     "JSON",
			data:     `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`,
			wantRefs: []string{"ConfigMap a @ src document 1"},
		},
		{
			name: "a List is read item by item",
			data: "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n" +
				"- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n",
			wantRefs: []string{"ConfigMap a @ src document 1 item 0", "ConfigMap b @ src document 1 item 1"},
		},
		{
			name: "anchors and aliases",
			data: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: &l {app: web}}\ndata: *l\n---\n" +
				"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {<<: {k: v}}\n",
			wantRefs: []string{"ConfigMap a @ src document 1", "ConfigMap b @ src document 2"},
		},
		{
			name:    "malformed YAML names the document",
			data:    "apiVersion: v1\nkind: ConfigMap\n---\nkind: [unclosed\n",
			wantErr: "src document 2: malformed YAML",
		},
		{
			name:    "a key given twice is refused, not guessed at",
			data:    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: one}\ndata: {k: two}\n",
			wantErr: `src document 1: malformed YAML: yaml: unmarshal errors:` + "\n" + `  line 5: key "data" already set in map`,
		},
		{
			name:    "an alias bomb stops at the parser's bound",
			data:    testenv.AliasBomb,
			wantErr: "src document 1: malformed YAML: yaml: document contains excessive aliasing",
		},
		{
			name:    "nesting stops at the parser's depth bound",
			data:    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n",
			wantErr: "exceeded max depth of 10000",
		},
		{
			name:    "invalid UTF-8 is refused",
			data:    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: \xff\xfe}\n",
			wantErr: "src document 1: malformed YAML: yaml: invalid leading UTF-8 octet",
		},
		{
			name:    "a scalar document is not an object",
			data:    "just text\n",
			wantErr: "src document 1: malformed YAML",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inputs, err := Decode("src", []byte(tt.data))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Decode error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var refs []string
			for _, in := range inputs {
				refs = append(refs, in.Object.GetKind()+" "+in.Object.GetName()+" @ "+in.Origin)
			}
			if strings.Join(refs, "|") != strings.Join(tt.wantRefs, "|") {
				t.Errorf("Decode = %v, want %v", refs, tt.wantRefs)
			}
		})
	}
}

// FuzzDecode checks that Decode never panics and that what it accepts are objects.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nkind: List\nitems: [{kind: X}]\n"))
	f.Add([]byte(`{"kind":"List","items":[1]}`))
	f.Add([]byte("---\n---\n# c\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		inputs, err := Decode("fuzz", data)
		if err != nil {
			return
		}
		for _, in := range inputs {
			if in.Object == nil || in.Object.Object == nil || in.Origin == "" {
				t.Fatalf("Decode returned an empty input %+v", in)
			}
		}
	})
}

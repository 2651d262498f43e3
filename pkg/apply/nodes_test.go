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

	"sigs.k8s.io/yaml"
)

// decodedNodes counts the nodes of what the decoder makes of doc, aliases
// expanded: every map, list and scalar, and every key.
func decodedNodes(v any) int64 {
	switch v := v.(type) {
	case map[string]any:
		n := int64(1)
		for _, value := range v {
			n += 1 + decodedNodes(value)
		}
		return n
	case []any:
		n := int64(1)
		for _, item := range v {
			n += decodedNodes(item)
		}
		return n
	}
	return 1
}

func TestNodeBound(t *testing.T) {
	tests := map[string]struct {
		doc  string
		want int64
	}{
		"a scalar":                        {"hello", 1},
		"a mapping":                       {"a: 1\nb: 2\n", 5},
		"dashes in names":                 {"name: my-app-name\nimage: a/b:1.2-rc\n", 7},
		"a block sequence":                {"- a\n- b\n-\n", 4},
		"JSON":                            {`{"a":[1,2],"b":{}}`, 18},
		"an alias repeats its anchor":     {"a: &x [1, 2]\nb: *x\n", 20},
		"a star inside a word":            {"a: b*c\n", 3},
		"an unknown alias":                {"a: *nowhere\n", 3},
		"prose of bullets and ampersands": {"description: |\n  * one & two\n  * three &\n  * four\n", 3},
		"an ampersand ending a plain key": {"0 &:", 3},
		"a colon after an alias name":     {"a: &x: 1\n", 5},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got := nodeBound([]byte(tt.doc), 1<<40)
			if got != tt.want {
				t.Errorf("nodeBound = %d, want %d", got, tt.want)
			}
			var decoded any
			if err := yaml.Unmarshal([]byte(tt.doc), &decoded); err == nil && decodedNodes(decoded) > got {
				t.Errorf("the decoder made %d nodes, more than the bound %d", decodedNodes(decoded), got)
			}
		})
	}
}

func TestNodeBoundStopsAtMost(t *testing.T) {
	doc := []byte(strings.Repeat("- {}\n", 1<<20))
	if got := nodeBound(doc, 1000); got <= 1000 || got > 1010 {
		t.Fatalf("nodeBound = %d, want it to stop just past 1000", got)
	}
	laughs := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i := range 20 {
		laughs += string(rune('b'+i)) + ": &" + string(rune('b'+i)) + " [" + strings.Repeat("*"+string(rune('a'+i))+", ", 9) + "*" + string(rune('a'+i)) + "]\n"
	}
	if got := nodeBound([]byte(laughs), 1<<20); got <= 1<<20 {
		t.Fatalf("a billion laughs bounded at %d nodes", got)
	}
}

func FuzzNodeBound(f *testing.F) {
	for _, seed := range []string{
		"a: 1\n", "- a\n- [b, {c: d}]\n", `{"a":[1,2,{"b":null}]}`, "a: &x {b: [1, 2]}\nc: [*x, *x]\n",
		"? a\n: b\n", "a: |\n  - x: y\n", "[a: b, c]", "{a, b: }", "- &a\n- *a\n", "a: 'x: y'\n",
		"a: !!str &b c\nd: *b\n", "--- a\n--- b\n", "0 &:",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var decoded any
		if err := yaml.Unmarshal([]byte(doc), &decoded); err != nil {
			return
		}
		if got, want := nodeBound([]byte(doc), 1<<40), decodedNodes(decoded); got < want {
			t.Fatalf("nodeBound(%q) = %d, fewer than the %d nodes decoded", doc, got, want)
		}
	})
}

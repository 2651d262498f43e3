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

package applyset

import (
	"bytes"
	"encoding/json"
	"testing"
)

// holdsByDecoding is holds as it was written first: each level decoded
// into a map. holds must answer as it does.
func holdsByDecoding(raw []byte, path []string) bool {
	if !bytes.Contains(raw, []byte(path[len(path)-1])) {
		return false
	}
	for _, key := range path {
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw, &fields) != nil {
			return false
		}
		next, ok := fields[key]
		if !ok {
			return false
		}
		raw = next
	}
	return true
}

// fieldSets are FieldsV1 sets as the API server writes them, and hostile ones.
var fieldSets = []string{
	`{"f:metadata":{"f:labels":{".":{},"f:applyset.kubernetes.io/part-of":{}}},"f:data":{"f:k":{}}}`,
	`{"f:data":{"f:applyset.kubernetes.io/part-of":{}}}`,
	`{"f:metadata":{"f:annotations":{"f:applyset.kubernetes.io/part-of":{}}}}`,
	`{"f:metadata":{"f:labels":{"f:app":{}}},"f:data":{"f:note":{"x":"f:applyset.kubernetes.io/part-of"}}}`,
	` { "f:metadata" : { "f:labels" : { "f:applyset.kubernetes.io/part-of" : { } } } } `,
	`{"f:metadata":{"f:labels":{"f:applyset.kubernetes.io\/part-of":{}}}}`, // the API server does not escape /
	`{"f:metadata":{"f\u003alabels":{"f:applyset.kubernetes.io/part-of":{}}}}`,
	`{"f:metadata":{"f:labels":{"f:applyset.kubernetes.io/part-of":{}}},"f:metadata":{}}`,
	`{"f:metadata":{},"f:metadata":{"f:labels":{"f:applyset.kubernetes.io/part-of":null}}}`,
	`{"f:metadata":null,"f:x":"f:applyset.kubernetes.io/part-of"}`,
	`{"f:metadata":{"f:labels":["f:applyset.kubernetes.io/part-of"]}}`,
	`{"f:metadata":{"f:labels":{"f:applyset.kubernetes.io/part-of":{}}}`,
	`{"a\"b":{"c]":[1,{"d}":"e\\"}],"f:metadata":{"f:labels":{"f:applyset.kubernetes.io/part-of":1}}}}`,
	`{"f:metadata":{"f:labels":{"f:applyset.kubernetes.io/part-of":{}}}} trailing`,
	`["f:applyset.kubernetes.io/part-of"]`,
	`f:applyset.kubernetes.io/part-of`,
	``,
}

func TestHolds(t *testing.T) {
	want := []bool{true, false, false, false, true, false, true, false, true, false, false, false, false, false, false, false, false}
	for i, raw := range fieldSets {
		if got := holds([]byte(raw), partOfField); got != want[i] {
			t.Errorf("holds(%s) = %v, want %v", raw, got, want[i])
		}
		if got, byDecoding := holds([]byte(raw), partOfField), holdsByDecoding([]byte(raw), partOfField); got != byDecoding {
			t.Errorf("holds(%s) = %v, where decoding says %v", raw, got, byDecoding)
		}
	}
}

// FuzzHolds: whatever the bytes, holds answers as decoding them does, for
// the part-of label's path and for a short one.
func FuzzHolds(f *testing.F) {
	for _, raw := range fieldSets {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, path := range [][]string{partOfField, {"a"}, {"a", "b"}} {
			if got, want := holds(raw, path), holdsByDecoding(raw, path); got != want {
				t.Errorf("holds(%q, %q) = %v, where decoding says %v", raw, path, got, want)
			}
		}
	})
}

func BenchmarkHolds(b *testing.B) {
	raw := []byte(fieldSets[0])
	for b.Loop() {
		holds(raw, partOfField)
	}
}

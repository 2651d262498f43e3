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
	"strings"
)

// The scanners below read JSON that json.Valid accepted, so they need not
// check what they skip: every object, array and string they meet is closed.

// fieldOf returns the value of key in the JSON object raw, the last where
// the key repeats, as a map decoded from it keeps; false when raw is no
// object or lacks the key.
func fieldOf(raw []byte, key string) ([]byte, bool) {
	i := skipSpace(raw, 0)
	if i == len(raw) || raw[i] != '{' {
		return nil, false
	}
	var (
		found []byte
		ok    bool
	)
	for i = skipSpace(raw, i+1); raw[i] != '}'; i = skipSpace(raw, i) {
		if raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
		end := stringEnd(raw, i)
		name := raw[i:end]
		i = skipSpace(raw, skipSpace(raw, end)+1) // past the colon
		valueEnd := valueEnd(raw, i)
		if keyIs(name, key) {
			found, ok = raw[i:valueEnd], true
		}
		i = valueEnd
	}
	return found, ok
}

// keyIs reports whether the quoted key name reads key once unescaped; one
// with escapes is decoded, which only a hostile or odd writer sends.
func keyIs(name []byte, key string) bool {
	if bytes.IndexByte(name, '\\') < 0 {
		return len(name) == len(key)+2 && string(name[1:len(name)-1]) == key
	}
	var s string
	return json.Unmarshal(name, &s) == nil && s == key
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index just past the string that starts at raw[i].
func stringEnd(raw []byte, i int) int {
	for i++; raw[i] != '"'; i++ {
		if raw[i] == '\\' {
			i++ // the escaped byte cannot end the string
		}
	}
	return i + 1
}

// valueEnd is the index just past the value that starts at raw[i].
func valueEnd(raw []byte, i int) int {
	switch raw[i] {
	case '"':
		return stringEnd(raw, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch raw[i] {
			case '"':
				i = stringEnd(raw, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(raw) && strings.IndexByte(",}] \t\n\r", raw[i]) < 0 {
		i++ // a number, true, false or null
	}
	return i
}

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

	"github.com/go-json-experiment/json/jsontext"
)

// readsPath reads the JSON object raw token by token, skipping what is off
// path without building it, and reports whether it holds the field at path
// as decoding each object on the path into a map would find it: the last of
// a repeated key counts. raw must be valid JSON (json.Valid).
func readsPath(raw []byte, path []string) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(raw),
		jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	return valueHolds(dec, path)
}

// valueHolds reads the next value of dec whole and reports whether it holds
// path: any value holds the empty path, an object the rest of path under
// its key path[0].
func valueHolds(dec *jsontext.Decoder, path []string) bool {
	if len(path) == 0 || dec.PeekKind() != '{' {
		return dec.SkipValue() == nil && len(path) == 0
	}
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	found := false
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return false
		}
		if name.String() == path[0] {
			found = valueHolds(dec, path[1:])
		} else if dec.SkipValue() != nil {
			return false
		}
	}
	_, err := dec.ReadToken() // the object's end
	return found && err == nil
}

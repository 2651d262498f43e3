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
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Input is one declared object and where it was declared, for messages.
type Input struct {
	Object *unstructured.Unstructured
	// Origin says where the object was declared, e.g. spec.resources[2] or
	// ConfigMap team-a/manifests key app.yaml document 3.
	Origin string
}

// Decode reads the objects of a multi-document YAML or JSON stream. Empty
// documents are skipped; a List's items are read as objects.
func Decode(origin string, data []byte) ([]Input, error) {
	return DecodeAtMost(origin, data, 0)
}

// TooManyObjectsError is a stream that holds more objects than allowed.
type TooManyObjectsError struct {
	Limit int
}

func (e *TooManyObjectsError) Error() string {
	return fmt.Sprintf("more than the limit of %d objects", e.Limit)
}

// DecodeAtMost decodes as Decode does, and stops with a *TooManyObjectsError
// as soon as the stream holds more than limit objects (0: no limit), so that
// a hostile stream costs no more than the limit's worth of decoding.
func DecodeAtMost(origin string, data []byte, limit int) ([]Input, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var inputs []Input
	for doc := 1; ; doc++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return inputs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s document %d: %w", origin, doc, err)
		}
		// The reader folds consecutive separators into the next document; count
		// them as the empty documents a person sees.
		doc += leadingSeparators(raw)
		if len(bytes.TrimSpace(stripComments(raw))) == 0 {
			continue
		}
		// A key given twice is ambiguous: refuse it rather than guess which
		// one the author meant (the strict reading fails on nothing else).
		if _, err := yaml.YAMLToJSONStrict(raw); err != nil {
			return nil, fmt.Errorf("%s document %d: malformed YAML: %w", origin, doc, err)
		}
		obj := &unstructured.Unstructured{}
		if err := utilyaml.Unmarshal(raw, &obj.Object); err != nil {
			return nil, fmt.Errorf("%s document %d: malformed YAML: %w", origin, doc, err)
		}
		if obj.Object == nil {
			continue
		}
		if limit > 0 && len(inputs) >= limit {
			return nil, fmt.Errorf("%s document %d: %w", origin, doc, &TooManyObjectsError{Limit: limit})
		}
		where := fmt.Sprintf("%s document %d", origin, doc)
		if obj.IsList() {
			list, err := obj.ToList()
			if err != nil {
				return nil, fmt.Errorf("%s: reading the List: %w", where, err)
			}
			for i := range list.Items {
				inputs = append(inputs, Input{Object: &list.Items[i], Origin: fmt.Sprintf("%s item %d", where, i)})
			}
			continue
		}
		inputs = append(inputs, Input{Object: obj, Origin: where})
	}
}

func leadingSeparators(doc []byte) int {
	n := 0
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.Equal(bytes.TrimRight(line, " \t\r"), []byte("---")) {
			break
		}
		n++
	}
	return n
}

func stripComments(doc []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line...)
			out = append(out, '\n')
		}
	}
	return out
}

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
	"runtime"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
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
	inputs, _, err := DecodeAtMost(origin, data, DecodeLimits{})
	return inputs, err
}

// DecodeLimits bound what a stream decodes to; a zero field leaves it
// unbounded.
type DecodeLimits struct {
	// Objects bounds the objects of the stream, a List's items each one.
	Objects int
	// Nodes bounds the nodes (mappings, sequences, keys and scalars,
	// aliases expanded) its documents decode to: the memory decoding takes
	// grows with them, about 110 bytes each at its peak, not with the bytes
	// read. The stream is counted from above by a scan that allocates
	// nothing, before any of it is read.
	Nodes int64
	// Counted are the nodes counted against Nodes before this stream: those
	// of the other streams of the same input.
	Counted int64
}

// TooManyNodesError is a stream whose documents would decode to more nodes
// than allowed.
type TooManyNodesError struct {
	Limit int64
}

func (e *TooManyNodesError) Error() string {
	return fmt.Sprintf("would decode to more than %d YAML nodes (mappings, lists, keys and values), counted before decoding", e.Limit)
}

// TooManyObjectsError is a stream that holds more objects than allowed.
type TooManyObjectsError struct {
	Limit int
}

func (e *TooManyObjectsError) Error() string {
	return fmt.Sprintf("more than the limit of %d objects", e.Limit)
}

// DecodeAtMost decodes as Decode does within limits, and gives the nodes
// counted, limits.Counted included. It stops with a *TooManyObjectsError as soon as the stream holds
// more than limits.Objects objects, and with a *TooManyNodesError before
// reading a stream that would pass limits.Nodes, so that a hostile stream
// costs no more than the limits' worth of decoding.
func DecodeAtMost(origin string, data []byte, limits DecodeLimits) ([]Input, int64, error) {
	nodes := limits.Counted
	if limits.Nodes > 0 {
		// One scan of the whole stream, before the reader copies a byte of it.
		if nodes += nodeBound(data, limits.Nodes-nodes); nodes > limits.Nodes {
			return nil, nodes, fmt.Errorf("%s: %w", origin, &TooManyNodesError{Limit: limits.Nodes})
		}
	}
	docs, err := splitDocuments(origin, data)
	if err != nil {
		return nil, nodes, err
	}
	decodeAll(docs)
	var inputs []Input
	for _, d := range docs {
		if d.err != nil {
			return nil, nodes, fmt.Errorf("%s document %d: malformed YAML: %w", origin, d.number, d.err)
		}
		obj := d.obj
		if obj.Object == nil {
			continue
		}
		if limits.Objects > 0 && len(inputs) >= limits.Objects {
			return nil, nodes, fmt.Errorf("%s document %d: %w", origin, d.number, &TooManyObjectsError{Limit: limits.Objects})
		}
		where := fmt.Sprintf("%s document %d", origin, d.number)
		if obj.IsList() {
			list, err := obj.ToList()
			if err != nil {
				return nil, nodes, fmt.Errorf("%s: reading the List: %w", where, err)
			}
			for i := range list.Items {
				inputs = append(inputs, Input{Object: &list.Items[i], Origin: fmt.Sprintf("%s item %d", where, i)})
			}
			continue
		}
		inputs = append(inputs, Input{Object: obj, Origin: where})
	}
	return inputs, nodes, nil
}

// document is one document of a stream, its number as a person counts
// them, and what it decoded to.
type document struct {
	number int
	raw    []byte
	obj    *unstructured.Unstructured
	err    error
}

// splitDocuments cuts a stream into its documents that hold anything.
func splitDocuments(origin string, data []byte) ([]*document, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs []*document
	for number := 1; ; number++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s document %d: %w", origin, number, err)
		}
		// The reader folds consecutive separators into the next document; count
		// them as the empty documents a person sees.
		number += leadingSeparators(raw)
		if !blank(raw) {
			docs = append(docs, &document{number: number, raw: raw})
		}
	}
}

// decodeAll decodes the documents on every core: a big stream's parse is
// most of the time it takes to read a set. Its nodes were bounded before.
func decodeAll(docs []*document) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(docs)/docsPerWorker+1) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(docs)); i = next.Add(1) - 1 {
				docs[i].decode()
			}
		})
	}
	wg.Wait()
}

// docsPerWorker is the fewest documents worth a goroutine of their own.
const docsPerWorker = 32

// decode reads the document. A key given twice is ambiguous: refuse it
// rather than guess which one the author meant (the strict reading fails on
// nothing else). The document is parsed as YAML once; its JSON is read as
// the API machinery reads YAML, numbers as int64 or float64.
func (d *document) decode() {
	js, err := yaml.YAMLToJSONStrict(d.raw)
	d.raw = nil
	if err != nil {
		d.err = err
		return
	}
	d.obj = &unstructured.Unstructured{}
	d.err = utiljson.Unmarshal(js, &d.obj.Object)
}

func leadingSeparators(doc []byte) int {
	n := 0
	for rest := doc; len(rest) > 0; n++ {
		line, next, _ := bytes.Cut(rest, []byte("\n"))
		if !bytes.Equal(bytes.TrimRight(line, " \t\r"), []byte("---")) {
			break
		}
		rest = next
	}
	return n
}

// blank tells whether doc holds nothing but blank lines, comments and
// separators, reading it in place.
func blank(doc []byte) bool {
	for rest := doc; len(rest) > 0; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 && trimmed[0] != '#' && !bytes.Equal(trimmed, []byte("---")) {
			return false
		}
	}
	return true
}

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
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/api/resource"
)

// gzipMagic opens every gzip stream (RFC 1952). YAML and JSON cannot start
// with it, so compressed and plain values need no marker besides.
var gzipMagic = []byte{0x1f, 0x8b}

// TooLargeError is input that holds more than a set may declare.
type TooLargeError struct {
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("more than the limit of %s, decompressed", resource.NewQuantity(e.Limit, resource.BinarySI))
}

// Inflate returns data as it was before compression when it is gzip, and as
// it is otherwise; either way no more than limit bytes, so that a small
// hostile value cannot fill the operator's memory.
func Inflate(data []byte, limit int64) ([]byte, error) {
	if !bytes.HasPrefix(data, gzipMagic) {
		if int64(len(data)) > limit {
			return nil, &TooLargeError{Limit: limit}
		}
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("reading gzip: %w", err)
	}
	// One byte more than the limit tells a value that fits from one that does not.
	out, err := io.ReadAll(io.LimitReader(zr, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading gzip: %w", err)
	}
	if int64(len(out)) > limit {
		return nil, &TooLargeError{Limit: limit}
	}
	if err := zr.Close(); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("reading gzip: %w", err)
	}
	return out, nil
}

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

package kbuild

import (
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"sync"

	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// Key names what a Read is a function of: the bytes of every file of the
// artifact with its path, the directory read, and the bounds that can change
// how a build ends (depth and memory). It is computed from the files
// themselves, never from a name, tag or digest a tenant or a registry
// chooses, so two sets share a build only when they would build the same.
type Key [sha256.Size]byte

// KeyOf is the Key of reading dir of files within limits.
func KeyOf(files *artifact.Tree, dir string, limits Limits) Key {
	h := sha256.New()
	for _, p := range files.Paths() {
		data, _ := files.File(p)
		writeField(h, []byte(p))
		writeField(h, data)
	}
	writeField(h, []byte("\x00dir"))
	writeField(h, []byte(dir))
	var n [16]byte
	binary.BigEndian.PutUint64(n[:8], uint64(limits.MaxDepth))
	binary.BigEndian.PutUint64(n[8:], uint64(limits.MaxMemory))
	h.Write(n[:])
	var k Key
	h.Sum(k[:0])
	return k
}

// writeField writes b with its length first, so no two lists of fields
// hash alike.
func writeField(h hash.Hash, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}

// Cache keeps the documents of recent reads, bounded by their bytes, so
// that sets reading the same directory of the same artifact build it once.
// A kustomize build is a pure function of its Key; what it produced is
// handed only to a read whose bounds it fits, so a set never gets more from
// the cache than its own build would have given it. The zero Cache, and a
// nil one, keep nothing.
type Cache struct {
	max int64

	mu      sync.Mutex
	used    int64
	order   *list.List // of *cached, most recently used first
	entries map[Key]*list.Element
}

type cached struct {
	key  Key
	docs []Document
	size int64
}

// NewCache keeps at most maxBytes of documents; 0 keeps none.
func NewCache(maxBytes int64) *Cache {
	return &Cache{max: maxBytes, order: list.New(), entries: map[Key]*list.Element{}}
}

// Get returns the documents cached under k when they fit limits.MaxBytes.
// A hit that does not fit is refused as the build would have refused it.
func (c *Cache) Get(k Key, limits Limits) ([]Document, bool, error) {
	if c == nil || c.max <= 0 {
		return nil, false, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok {
		return nil, false, nil
	}
	c.order.MoveToFront(e)
	entry := e.Value.(*cached)
	if entry.size > limits.MaxBytes {
		return nil, true, &LimitError{fmt.Sprintf("the build produces %s, more than the %s left", text.Bytes(entry.size), text.Bytes(limits.MaxBytes))}
	}
	return entry.docs, true, nil
}

// Add caches docs under k, dropping the least recently used entries to stay
// within the bound; documents larger than a quarter of it are not kept, so
// one set cannot empty the cache of every other.
func (c *Cache) Add(k Key, docs []Document) {
	if c == nil || c.max <= 0 {
		return
	}
	var size int64
	for _, d := range docs {
		size += int64(len(d.Data))
	}
	if size > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[k]; ok {
		return
	}
	c.entries[k] = c.order.PushFront(&cached{key: k, docs: docs, size: size})
	c.used += size
	for c.used > c.max {
		last := c.order.Back()
		entry := last.Value.(*cached)
		c.order.Remove(last)
		delete(c.entries, entry.key)
		c.used -= entry.size
	}
}

// Len is how many reads the cache holds.
func (c *Cache) Len() int {
	if c == nil || c.max <= 0 {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

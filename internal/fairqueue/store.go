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

// Package fairqueue orders a controller's work queue fairly between
// tenants: the items of each key (a namespace) wait in their own line, and
// the lines take turns, so a tenant who queues a thousand sets delays
// another tenant's one set by at most one turn per tenant ahead of it,
// instead of by all thousand.
//
// Store is the storage of client-go's work queue (workqueue.Queue): the
// queue around it keeps its guarantees (an item is queued once, is never
// handed to two workers at once, and waits out its rate limit), and Store
// only decides the order.
package fairqueue

// Store keeps items in one FIFO line per key and pops the lines in turn.
// Like every workqueue.Queue, it is used from one goroutine at a time.
type Store[T comparable] struct {
	keyOf func(T) string
	lines map[string][]T
	// turns are the keys with items, in the order of their next turn.
	turns []string
	n     int
}

// New returns an empty Store whose lines are keyed by keyOf.
func New[T comparable](keyOf func(T) string) *Store[T] {
	return &Store[T]{keyOf: keyOf, lines: map[string][]T{}}
}

// Touch keeps an item queued again where it is: its tenant's turn does not
// come sooner for asking twice.
func (s *Store[T]) Touch(T) {}

// Push puts item at the end of its key's line; a key that had no line
// takes its turn after every key waiting.
func (s *Store[T]) Push(item T) {
	key := s.keyOf(item)
	if len(s.lines[key]) == 0 {
		s.turns = append(s.turns, key)
	}
	s.lines[key] = append(s.lines[key], item)
	s.n++
}

// Len is the number of items queued.
func (s *Store[T]) Len() int { return s.n }

// Pop takes the first item of the key whose turn it is; that key, if it
// has more, waits for its next turn behind the others. The queue around
// the Store calls Pop only when Len is positive.
func (s *Store[T]) Pop() T {
	key := s.turns[0]
	s.turns = s.turns[1:]
	line := s.lines[key]
	item := line[0]
	var zero T
	line[0] = zero // no reference kept for the collector to miss
	if line = line[1:]; len(line) == 0 {
		delete(s.lines, key)
	} else {
		s.lines[key] = line
		s.turns = append(s.turns, key)
	}
	s.n--
	return item
}

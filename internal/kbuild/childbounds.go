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
	"fmt"
	"strconv"
	"strings"
)

// childBounds are what a child is told before it reads its request.
type childBounds struct {
	// memory is the heap the child's collector keeps to, and its sampler
	// ends it at: the early stop, with room to say so.
	memory int64
	// addressSpace is what the child may map beyond what it has mapped
	// when it sets the bound: the hard stop, which no allocation passes.
	addressSpace int64
}

// arenaBytes is how much address space the Go runtime reserves at a time
// for its heap on 64-bit Linux (heapArenaBytes).
const arenaBytes = 64 << 20

// boundsFor are the bounds of a child whose build may use memory bytes.
// Its address space grows by more than it holds: the runtime reserves heap
// an arena at a time, and a large object freed does not always leave room
// for the next. Copying a 64 KiB value nine times over, within a heap bound
// of 256 MiB, held 276 MiB and needed up to 448 MiB of address space beyond
// its start (docs/operations/performance.md); twice the heap bound and an
// arena let every build its heap bound lets finish finish.
func boundsFor(memory int64) childBounds {
	return childBounds{memory: memory, addressSpace: 2*memory + arenaBytes}
}

// Footprint is the most memory a build whose heap is bounded by memory
// holds before its heap bound stops it: the bound, and the runtime's, the
// request's and kustomize's own (a build of one ConfigMap holds 29 MiB,
// one stopped at 256 MiB of heap 275 MiB at its peak). Only a build that
// grows past its sampler between two samples holds more, up to its
// address-space bound.
func Footprint(memory int64) int64 {
	return memory + arenaBytes
}

func (b childBounds) String() string { return fmt.Sprintf("%d/%d", b.memory, b.addressSpace) }

func parseChildBounds(s string) (childBounds, error) {
	memory, addressSpace, _ := strings.Cut(s, "/")
	m, errM := strconv.ParseInt(memory, 10, 64)
	a, errA := strconv.ParseInt(addressSpace, 10, 64)
	if errM != nil || errA != nil || m <= 0 || a <= 0 {
		return childBounds{}, fmt.Errorf("%s=%q: want two positive byte counts, HEAP/ADDRESS_SPACE", childEnv, s)
	}
	return childBounds{memory: m, addressSpace: a}, nil
}

// childProcs is the most processors a child's Go runtime uses: a build
// runs on one goroutine, a second leaves the collector room, and more
// would let the builds take the CPUs the operator reconciles with.
const childProcs = 2

// childEnviron is the whole environment of a child: its bounds, an empty
// PATH, so that should kustomize know a remote reference the walk does not
// it finds no git to run, and a processor count. Nothing of the operator's
// environment (credentials, proxies, GODEBUG) reaches the build.
func childEnviron(b childBounds, procs int) []string {
	return []string{childEnv + "=" + b.String(), "PATH=", "GOMAXPROCS=" + strconv.Itoa(max(1, min(procs, childProcs)))}
}

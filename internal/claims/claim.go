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

// Package claims decides which replica of the operator reconciles a set
// when several run at once: rendezvous hashing over the live replicas picks
// the set's target, and a set moves to its target only through a handover
// recorded on the set, so that no two replicas act on one set at once. It
// is pure: the callers bring the Leases they observed and the owner the set
// names, and write what Decide asks for.
package claims

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// Holder names a replica and the term of its Lease: a replica whose Lease
// lapsed and was taken again starts a new term, and owns none of the sets
// its earlier term owned until it takes them over like anyone else.
type Holder struct {
	Replica string
	Term    int64
}

// String is the annotation value, replica/term; empty for no owner.
func (o Holder) String() string {
	if o.IsZero() {
		return ""
	}
	return o.Replica + "/" + strconv.FormatInt(o.Term, 10)
}

// IsZero reports whether o names no replica.
func (o Holder) IsZero() bool { return o.Replica == "" }

// ParseHolder reads an annotation value written by String. The replica is a
// Lease name suffix: a DNS subdomain without "/".
func ParseHolder(value string) (Holder, error) {
	replica, term, ok := strings.Cut(value, "/")
	if !ok || replica == "" || strings.Contains(term, "/") {
		return Holder{}, fmt.Errorf("owner %q: want REPLICA/TERM", value)
	}
	n, err := strconv.ParseInt(term, 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != term {
		return Holder{}, fmt.Errorf("owner %q: the term must be a non-negative decimal number", value)
	}
	return Holder{Replica: replica, Term: n}, nil
}

// Target is the replica that key belongs to among replicas, by rendezvous
// (highest random weight) hashing: each replica scores the key, the highest
// score wins. A replica that joins or leaves moves only the keys it wins or
// held, about 1/n of them. Empty for no replicas.
func Target(key string, replicas []string) string {
	var best string
	var bestScore uint64
	for _, r := range replicas {
		if s := score(key, r); best == "" || s > bestScore || s == bestScore && r < best {
			best, bestScore = r, s
		}
	}
	return best
}

func score(key, replica string) uint64 {
	h := sha256.New()
	h.Write([]byte(replica))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return binary.BigEndian.Uint64(h.Sum(nil))
}

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

package inventory

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

// Layout bounds where an inventory is kept.
type Layout struct {
	// Inline is the most members status.members holds; a larger inventory
	// lives in chunks.
	Inline int
	// PerChunk is the number of members a chunk holds on average.
	PerChunk int
	// Most is the most members one chunk holds; 0 is maxPerChunk.
	Most int
}

const (
	// maxPerChunk is the API's bound on the members of one chunk: 4,096
	// members of 127 bytes stay far below etcd's 1.5 MiB.
	maxPerChunk = 4096
	// MaxChunks is the API's bound on the chunks of one set.
	MaxChunks = 1024
	// maxChunkBytes bounds what the members of one chunk take, as JSON:
	// names may be long, so the count alone does not keep a chunk far below
	// etcd's 1.5 MiB.
	maxChunkBytes = 1 << 20
	// memberJSON is what a member takes in JSON besides its strings: keys,
	// quotes, commas and the cascade flag.
	memberJSON = 80
)

// DefaultLayout keeps up to 1,000 members (127 KiB) in status and about
// 2,048 in each chunk (260 KiB), so that a set's own object stays under
// 512 KiB and each chunk far under etcd's limit at any size.
var DefaultLayout = Layout{Inline: 1000, PerChunk: 2048}

// Owner is the set an inventory belongs to.
type Owner struct {
	// Kind is ApplySet or ClusterApplySet.
	Kind string
	Name string
	UID  types.UID
	// Namespace holds the chunks: the ApplySet's, or the operator's for a
	// ClusterApplySet.
	Namespace string
}

// Placed is where an inventory is kept: inline in status, or in chunks
// that status names.
type Placed struct {
	// Members is status.members; nil when the inventory is in chunks.
	Members []applyv1alpha1.Member
	// Status is status.inventory; nil when the inventory is inline.
	Status *applyv1alpha1.InventoryStatus
	// Chunks are the ApplySetInventory objects Status names, in its order.
	Chunks []*applyv1alpha1.ApplySetInventory
	// Lost are chunks the stored status names that were not found: they are
	// written again, whatever their digest.
	Lost []string
}

// Place keeps inv inline when it is small enough, else in chunks: members
// are spread by a hash of their reference over a power of two of chunks, so
// that a change of a few members rewrites only their chunks and the layout
// changes only when the set doubles or halves. The count doubles again if
// a chunk would hold more than l.Most members (names chosen to collide) or
// more than 1 MiB (long names).
func (l Layout) Place(inv Inventory, owner Owner) (Placed, error) {
	if inv.Len() <= l.Inline {
		return Placed{Members: inv.Status()}, nil
	}
	most := min(cmp.Or(l.Most, maxPerChunk), maxPerChunk)
	per, n := max(1, cmp.Or(l.PerChunk, DefaultLayout.PerChunk)), 1
	for n*per < inv.Len() && n < MaxChunks {
		n *= 2
	}
	for ; n <= MaxChunks; n *= 2 {
		buckets, bytes := make([][]applyv1alpha1.Member, n), make([]int, n)
		fits := true
		for _, m := range inv.Status() {
			i := bucketOf(owner.UID, m, n)
			buckets[i] = append(buckets[i], m)
			bytes[i] += len(m.Group) + len(m.Kind) + len(m.Namespace) + len(m.Name) + len(m.UID) + memberJSON
			fits = fits && len(buckets[i]) <= most && bytes[i] <= maxChunkBytes
		}
		if fits {
			return chunked(buckets, owner), nil
		}
	}
	return Placed{}, fmt.Errorf("the inventory of %d members does not fit in %d chunks of %d", inv.Len(), MaxChunks, most)
}

// chunked is the placement of buckets, empty ones included, so that every
// member's chunk is where its hash says.
func chunked(buckets [][]applyv1alpha1.Member, owner Owner) Placed {
	p := Placed{Status: &applyv1alpha1.InventoryStatus{Namespace: owner.Namespace}}
	for i, members := range buckets {
		d := digest(members)
		chunk := &applyv1alpha1.ApplySetInventory{
			TypeMeta: metav1.TypeMeta{APIVersion: applyv1alpha1.GroupVersion.String(), Kind: "ApplySetInventory"},
			ObjectMeta: metav1.ObjectMeta{Namespace: owner.Namespace, Name: chunkName(owner.UID, i, len(buckets), d),
				Labels: map[string]string{applyv1alpha1.InventoryOfLabel: string(owner.UID)}},
			Spec: applyv1alpha1.ApplySetInventorySpec{
				Set:     applyv1alpha1.InventorySet{Kind: owner.Kind, Name: owner.Name, UID: string(owner.UID)},
				Members: members,
			},
		}
		p.Chunks = append(p.Chunks, chunk)
		p.Status.Chunks = append(p.Status.Chunks, applyv1alpha1.InventoryChunk{
			Name: chunk.Name, Count: ptr.To(int32(len(members))), Digest: d})
	}
	return p
}

// chunkName names chunk i of n of the set of uid, told apart by tag: the
// digest of its members as placed, or a writer's nonce (Named).
func chunkName(uid types.UID, i, n int, tag string) string {
	return fmt.Sprintf("inventory-%s-%d-of-%d-%s", uid, i, n, tag)
}

// Named is p with the names its chunks are written under: a chunk that
// stored (the status it will replace) holds already, at its place and with
// its digest, keeps its name; every other is named anew with nonce, which
// the writer draws for each write of status. So a name is written once,
// with one content, and never named by two writers' statuses for other
// members: a writer that collects the chunks its write no longer names
// cannot delete one that another writer's later status names.
func (p Placed) Named(stored *applyv1alpha1.InventoryStatus, nonce string) Placed {
	if p.Status == nil {
		return p
	}
	out := p
	out.Status = p.Status.DeepCopy()
	out.Chunks = make([]*applyv1alpha1.ApplySetInventory, len(p.Chunks))
	n := len(p.Chunks)
	for i, chunk := range p.Chunks {
		name := chunkName(types.UID(chunk.Spec.Set.UID), i, n, nonce)
		if stored != nil && len(stored.Chunks) == n && stored.Chunks[i].Digest == p.Status.Chunks[i].Digest &&
			!slices.Contains(p.Lost, stored.Chunks[i].Name) {
			name = stored.Chunks[i].Name
		}
		named := chunk.DeepCopy()
		named.Name = name
		out.Chunks[i], out.Status.Chunks[i].Name = named, name
	}
	return out
}

// digest is the first 16 hex characters of the SHA-256 of members.
func digest(members []applyv1alpha1.Member) string {
	data, err := json.Marshal(members)
	if err != nil {
		panic(err) // members are plain strings and booleans
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// bucketOf spreads members over n chunks by a hash of their reference,
// salted with the set's UID.
func bucketOf(uid types.UID, m applyv1alpha1.Member, n int) int {
	h := sha256.New()
	for _, s := range []string{string(uid), m.Group, m.Kind, m.Namespace, m.Name} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return int(binary.BigEndian.Uint64(h.Sum(nil)) % uint64(n))
}

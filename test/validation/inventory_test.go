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

package validation

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
)

// inventoryChunk is an ApplySetInventory in the home namespace with the
// given spec. The suite writes as an admin, whom the inventory policy lets
// write chunks; controllers/applysets/inventory_test.go proves that it
// refuses a namespace's admin.
func inventoryChunk(spec string) string {
	return "{apiVersion: apply.applyset.dev/v1alpha1, kind: ApplySetInventory, metadata: {name: chunk, namespace: " +
		home + "}, spec: " + spec + "}"
}

// chunkOf is a chunk of the set "big" holding members.
func chunkOf(members string) string {
	return inventoryChunk("{set: {kind: ApplySet, name: big, uid: 6ba7b810-9dad-11d1-80b4-00c04fd430c8}, members: [" + members + "]}")
}

var _ = Describe("ApplySetInventory validation", func() {
	DescribeTable("rules", func(ctx context.Context, manifest string, want *rejection) {
		expectBoth(ctx, manifest, want)
	},
		Entry("a chunk of 4,096 members is accepted", chunkOf(repeat(4096, func(i int) string {
			return fmt.Sprintf("{kind: ConfigMap, namespace: a, name: cm-%d, uid: 6ba7b810-9dad-11d1-80b4-00c04fd430c8, cascade: false}", i)
		})), accepted),
		Entry("at most 4,096 members", chunkOf(repeat(4097, func(i int) string { return fmt.Sprintf("{kind: ConfigMap, name: cm-%d}", i) })),
			rejected("spec.members", tooMany, "must have at most 4096 items")),
		Entry("a member needs kind", chunkOf("{name: a}"), rejected("spec.members[0].kind", required, "Required value")),
		Entry("a member needs name", chunkOf("{kind: ConfigMap}"), rejected("spec.members[0].name", required, "Required value")),
		Entry("a member's kind is not empty", chunkOf("{kind: '', name: a}"),
			rejected("spec.members[0].kind", invalid, "should be at least 1 chars long")),
		Entry("a member's name is not empty", chunkOf("{kind: ConfigMap, name: ''}"),
			rejected("spec.members[0].name", invalid, "should be at least 1 chars long")),
		Entry("a member's uid is a UID", chunkOf("{kind: ConfigMap, name: a, uid: "+strings.Repeat("u", 37)+"}"),
			rejected("spec.members[0].uid", tooLong, "may not be more than 36 bytes")),

		Entry("a chunk names its set", inventoryChunk("{members: []}"), rejected("spec.set", required, "Required value")),
		Entry("the set's kind is needed", inventoryChunk("{set: {name: big, uid: u}}"), rejected("spec.set.kind", required, "Required value")),
		Entry("the set's name is needed", inventoryChunk("{set: {kind: ApplySet, uid: u}}"), rejected("spec.set.name", required, "Required value")),
		Entry("the set's uid is needed", inventoryChunk("{set: {kind: ApplySet, name: big}}"), rejected("spec.set.uid", required, "Required value")),
		Entry("the set is an ApplySet or a ClusterApplySet", inventoryChunk("{set: {kind: ConfigMap, name: big, uid: u}}"),
			rejected("spec.set.kind", notSupported, `supported values: "ApplySet", "ClusterApplySet"`)),
		Entry("a ClusterApplySet's chunk is accepted", inventoryChunk("{set: {kind: ClusterApplySet, name: "+strings.Repeat("n", 253)+", uid: u}}"),
			accepted),
		Entry("the set's name is at most 253 characters", inventoryChunk("{set: {kind: ApplySet, name: "+strings.Repeat("n", 254)+", uid: u}}"),
			rejected("spec.set.name", tooLong, "may not be more than 253 bytes")),
		Entry("the set's name is not empty", inventoryChunk("{set: {kind: ApplySet, name: '', uid: u}}"),
			rejected("spec.set.name", invalid, "should be at least 1 chars long")),
		Entry("the set's uid is a UID", inventoryChunk("{set: {kind: ApplySet, name: big, uid: "+strings.Repeat("u", 37)+"}}"),
			rejected("spec.set.uid", tooLong, "may not be more than 36 bytes")),
		Entry("the set's uid is not empty", inventoryChunk("{set: {kind: ApplySet, name: big, uid: ''}}"),
			rejected("spec.set.uid", invalid, "should be at least 1 chars long")),
	)
})

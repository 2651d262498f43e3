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

package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

	"github.com/applyset-operator/applyset-operator/internal/claims"
	"github.com/applyset-operator/applyset-operator/internal/replicas"
)

// writesPolicy has the API server record every write of an ApplySet or a
// ConfigMap with the object it stored: the witness of who wrote what.
const writesPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: RequestResponse
  verbs: [create, update, patch, delete, deletecollection]
  resources:
  - group: apply.applyset.dev
    resources: [applysets, applysets/status]
  - group: ""
    resources: [configmaps]
- level: None
`

// auditedWrite is one write the API server answered with success.
type auditedWrite struct {
	// replica made the write, by its user agent; "" for anyone else.
	replica string
	verb    string
	// set is the set written, or the set whose member was written.
	set, member string
	// ownerWrite is a write of the owner annotation's field manager.
	ownerWrite bool
	// rv is the resourceVersion the API server answered with, one etcd
	// revision counter for every kind; owner is the replica the stored set
	// names (set writes only).
	rv                  int64
	owner               string
	received, completed time.Time
	// created: the API server answered 201 Created.
	created bool
}

// readWrites reads the successful writes to namespace from the audit log at
// path. Members are the ConfigMaps named <set>-m<n>.
func readWrites(path, namespace string) ([]auditedWrite, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var writes []auditedWrite
	scanner := bufio.NewScanner(f)
	scanner.Buffer(nil, 16<<20)
	for scanner.Scan() {
		var ev auditv1.Event
		if err := json.Unmarshal(scanner.Bytes(), &ev); err != nil {
			return nil, fmt.Errorf("an audit event: %w", err)
		}
		ref := ev.ObjectRef
		if ev.Stage != auditv1.StageResponseComplete || ref == nil || ref.Namespace != namespace ||
			ev.ResponseStatus == nil || ev.ResponseStatus.Code >= 300 {
			continue
		}
		w := auditedWrite{replica: replicaOf(ev.UserAgent), verb: ev.Verb,
			ownerWrite: strings.Contains(ev.RequestURI, "fieldManager="+replicas.FieldManager),
			received:   ev.RequestReceivedTimestamp.Time, completed: ev.StageTimestamp.Time,
			created: ev.ResponseStatus.Code == http.StatusCreated}
		switch ref.Resource {
		case "applysets":
			w.set = ref.Name
		case "configmaps":
			w.member = ref.Name
			if i := strings.LastIndex(ref.Name, "-m"); i > 0 {
				w.set = ref.Name[:i]
			}
		default:
			continue
		}
		if ev.ResponseObject != nil && w.verb != "delete" {
			var stored struct {
				Metadata struct {
					ResourceVersion string            `json:"resourceVersion"`
					Annotations     map[string]string `json:"annotations"`
				} `json:"metadata"`
			}
			if err := json.Unmarshal(ev.ResponseObject.Raw, &stored); err != nil {
				return nil, fmt.Errorf("the object stored by %s: %w", ev.AuditID, err)
			}
			w.rv, _ = strconv.ParseInt(stored.Metadata.ResourceVersion, 10, 64)
			owner, _ := claims.ParseHolder(stored.Metadata.Annotations[replicas.OwnerAnnotation])
			w.owner = owner.Replica
		}
		writes = append(writes, w)
	}
	return writes, scanner.Err()
}

// replicaOf is the replica replicaUserAgent names, "" when none.
func replicaOf(userAgent string) string {
	_, name, _ := strings.Cut(userAgent, " replica/")
	return name
}

// overlappingWrites returns every write the protocol forbids:
//   - a set written by a replica the stored set does not name, except an
//     owner write handing the set over from the replica it named before;
//   - a member changed by a replica other than the one its set named at the
//     revision just before (one etcd revision counter orders both);
//   - a member written without change by a replica its set named at no
//     moment of the request;
//   - a member deleted, or created twice.
func overlappingWrites(writes []auditedWrite) []string {
	history := map[string][]auditedWrite{} // each set's stored versions, by revision
	for _, w := range writes {
		if w.member == "" && w.rv > 0 {
			history[w.set] = append(history[w.set], w)
		}
	}
	for _, versions := range history {
		slices.SortFunc(versions, func(a, b auditedWrite) int { return cmp.Compare(a.rv, b.rv) })
	}
	before := func(set string, rv int64) auditedWrite {
		var last auditedWrite
		for _, v := range history[set] {
			if v.rv >= rv {
				break
			}
			last = v
		}
		return last
	}
	namedDuring := func(set, replica string, from, to time.Time) bool {
		versions := history[set]
		for i, v := range versions {
			if v.owner == replica && !v.received.After(to) && (i+1 == len(versions) || !versions[i+1].completed.Before(from)) {
				return true
			}
		}
		return false
	}

	var illegal []string
	created := map[string]int{}
	stored := map[string]int64{} // each member's highest revision seen so far
	members := slices.Clone(writes)
	slices.SortStableFunc(members, func(a, b auditedWrite) int { return cmp.Compare(a.rv, b.rv) })
	for _, w := range members {
		switch {
		case w.member == "" && w.replica != "":
			if w.owner != w.replica && (!w.ownerWrite || before(w.set, w.rv).owner != w.replica) {
				illegal = append(illegal, fmt.Sprintf("%s wrote set %s (%s) at revision %d, which names %q", w.replica, w.set, w.verb, w.rv, w.owner))
			}
		case w.member == "":
		case w.verb == "delete" || w.verb == "deletecollection":
			illegal = append(illegal, fmt.Sprintf("member %s deleted by %q", w.member, cmp.Or(w.replica, "another client")))
		default:
			if created[w.member] += boolToInt(w.created); created[w.member] > 1 {
				illegal = append(illegal, fmt.Sprintf("member %s created again at revision %d", w.member, w.rv))
			}
			changed := w.rv > stored[w.member]
			stored[w.member] = max(stored[w.member], w.rv)
			if w.replica == "" {
				continue
			}
			if changed {
				if owner := before(w.set, w.rv).owner; owner != w.replica {
					illegal = append(illegal, fmt.Sprintf("%s changed member %s at revision %d while set %s named %q",
						w.replica, w.member, w.rv, w.set, owner))
				}
			} else if !namedDuring(w.set, w.replica, w.received, w.completed) {
				illegal = append(illegal, fmt.Sprintf("%s wrote member %s unchanged while set %s named another replica", w.replica, w.member, w.set))
			}
		}
	}
	return illegal
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestOverlappingWrites(t *testing.T) {
	at := func(s int) time.Time { return time.Unix(1000, 0).Add(time.Duration(s) * time.Second) }
	set := func(replica, owner string, rv int64, s int) auditedWrite {
		return auditedWrite{replica: replica, verb: "patch", set: "s", owner: owner, rv: rv, received: at(s), completed: at(s)}
	}
	member := func(replica string, rv int64, s int) auditedWrite {
		return auditedWrite{replica: replica, verb: "patch", set: "s", member: "s-m0", rv: rv, received: at(s), completed: at(s)}
	}
	handover := set("a", "b", 3, 3)
	handover.ownerWrite = true
	created := member("a", 2, 2)
	created.created = true
	for _, tc := range []struct {
		name    string
		writes  []auditedWrite
		illegal int
	}{
		{name: "owner writes the set and its member", writes: []auditedWrite{set("", "", 1, 1), set("a", "a", 2, 2), member("a", 3, 3)}},
		{name: "the old owner hands over, the new one writes", writes: []auditedWrite{set("a", "a", 1, 1), handover, member("b", 4, 4)}},
		{name: "a set write naming another replica", writes: []auditedWrite{set("a", "a", 1, 1), set("b", "a", 2, 2)}, illegal: 1},
		{name: "a member changed after the handover by the old owner",
			writes: []auditedWrite{set("a", "a", 1, 1), handover, member("a", 4, 4)}, illegal: 1},
		{name: "a member written unchanged by a replica never named then",
			writes: []auditedWrite{set("a", "a", 1, 1), member("a", 2, 2), member("b", 2, 5)}, illegal: 1},
		{name: "a member deleted",
			writes: []auditedWrite{set("a", "a", 1, 1), {replica: "a", verb: "delete", set: "s", member: "s-m0"}}, illegal: 1},
		{name: "a member created twice", writes: []auditedWrite{set("a", "a", 1, 1), created, func() auditedWrite {
			again := created
			again.rv = 5
			return again
		}()}, illegal: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := overlappingWrites(tc.writes); len(got) != tc.illegal {
				t.Errorf("overlappingWrites = %q, want %d", got, tc.illegal)
			}
		})
	}
}

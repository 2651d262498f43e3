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

package ui

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
)

// TestSetPageJudgesOnlyItsRows: the page of a set bigger than a page reads
// whole and judges the members of its table only (a GET each, or one LIST
// when they are most of the set), counts the rest by kind from their
// metadata, and says how many it judged.
func TestSetPageJudgesOnlyItsRows(t *testing.T) {
	const members = 300 // a page and a half of Services, whose health needs the whole object
	var manifests strings.Builder
	for i := range members {
		fmt.Fprintf(&manifests, "{apiVersion: v1, kind: Service, metadata: {name: svc-%03d}, spec: {ports: [{port: 80}]}}\n---\n", i)
	}
	var bodies atomic.Int64 // reads of whole Services: a GET of one, or a LIST of them (not of their metadata)
	server := serveShop(t, "big", manifests.String(), func(r *http.Request) {
		if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/shop/services") &&
			!strings.Contains(r.Header.Get("Accept"), "PartialObjectMetadata") {
			bodies.Add(1)
		}
	})
	for _, tc := range []struct {
		page      string
		rows      int
		reads     int // 200 of 300 are most of them: one LIST; fewer, a GET each
		judged    string
		notJudged int // members the graph counts as not judged
	}{
		{"1", pageSize, 1, "200/200 ready (judged 200 of 300)", members - pageSize},
		{"2", members - pageSize, members - pageSize, "100/100 ready (judged 100 of 300)", pageSize},
		{"9", members - pageSize, members - pageSize, "100/100 ready (judged 100 of 300)", pageSize}, // past the last: the last
	} {
		t.Run("page "+tc.page, func(t *testing.T) {
			bodies.Store(0)
			resp, err := http.Get(server.URL + "/sets/shop/secret/big?page=" + tc.page)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d, %v:\n%s", resp.StatusCode, err, body)
			}
			html := string(body)
			if n := bodies.Load(); n != int64(tc.reads) {
				t.Errorf("%d reads of whole Services, want %d", n, tc.reads)
			}
			for _, want := range []string{regexp.QuoteMeta(`<dd id="set-health">` + tc.judged + `</dd>`), `<dd id="member-count">300</dd>`,
				fmt.Sprintf(`"label":"Service","health":"NotJudged","group":\d+,"foreign":false,"count":%d\b`, tc.notJudged)} {
				if !regexp.MustCompile(want).MatchString(html) {
					t.Errorf("the page lacks %s", want)
				}
			}
			if rows := len(regexp.MustCompile(`<tr id="member-`).FindAllString(html, -1)); rows != tc.rows {
				t.Errorf("%d rows, want %d", rows, tc.rows)
			}
		})
	}
}

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

package parents

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestViewListsAPageOfMembers(t *testing.T) {
	view := func(n int) View {
		v := View{}
		for i := range n {
			v.MemberList = append(v.MemberList, MemberHealth{Kind: "ConfigMap", Namespace: "ns", Name: fmt.Sprintf("cm-%d", i), Health: "Current"})
		}
		return v
	}
	names := func(v View) []string {
		var out []string
		for _, m := range v.MemberList {
			out = append(out, m.Name)
		}
		return out
	}
	cases := []struct {
		name     string
		members  int
		page     memberPage
		want     []string
		listed   *ListedMembers
		footnote string
	}{
		{name: "no page: every member", members: 3, want: []string{"cm-0", "cm-1", "cm-2"}},
		{name: "the first page", members: 5, page: memberPage{limit: 2}, want: []string{"cm-0", "cm-1"},
			listed: &ListedMembers{Offset: 0, Count: 2, Of: 5}, footnote: "Members 1 to 2 of 5 listed; --offset=2 for the next ones.\n"},
		{name: "a middle page", members: 5, page: memberPage{offset: 2, limit: 2}, want: []string{"cm-2", "cm-3"},
			listed: &ListedMembers{Offset: 2, Count: 2, Of: 5}, footnote: "Members 3 to 4 of 5 listed; --offset=4 for the next ones.\n"},
		{name: "the last page, short", members: 5, page: memberPage{offset: 4, limit: 2}, want: []string{"cm-4"},
			listed: &ListedMembers{Offset: 4, Count: 1, Of: 5}, footnote: "Members 5 to 5 of 5 listed.\n"},
		{name: "an offset alone lists the rest", members: 5, page: memberPage{offset: 3}, want: []string{"cm-3", "cm-4"},
			listed: &ListedMembers{Offset: 3, Count: 2, Of: 5}, footnote: "Members 4 to 5 of 5 listed.\n"},
		{name: "past the end", members: 5, page: memberPage{offset: 9, limit: 2},
			listed: &ListedMembers{Offset: 5, Count: 0, Of: 5}, footnote: "No members listed: --offset=5 skips all 5.\n"},
		{name: "a set without members", members: 0, page: memberPage{limit: 2}, listed: &ListedMembers{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.page.paged(view(tc.members))
			if diff := cmp.Diff(tc.want, names(got)); diff != "" {
				t.Errorf("members listed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.listed, got.Listed); diff != "" {
				t.Errorf("listed (-want +got):\n%s", diff)
			}
			var out bytes.Buffer
			printListed(&out, got.Listed)
			if out.String() != tc.footnote {
				t.Errorf("footnote %q, want %q", out.String(), tc.footnote)
			}
		})
	}
}

func TestViewRefusesANegativePage(t *testing.T) {
	for _, p := range []memberPage{{offset: -1}, {limit: -1}} {
		if err := p.validate(); err == nil || !strings.Contains(err.Error(), "0 or more") {
			t.Errorf("%+v: %v, want a refusal", p, err)
		}
	}
	if err := (memberPage{offset: 3, limit: 2}).validate(); err != nil {
		t.Errorf("a page was refused: %v", err)
	}
}

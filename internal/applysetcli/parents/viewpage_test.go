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
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"
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
		page     Page
		want     []string
		listed   *ListedMembers
		footnote string
	}{
		{name: "no page: every member", members: 3, want: []string{"cm-0", "cm-1", "cm-2"}},
		{name: "the first page", members: 5, page: Page{Limit: 2}, want: []string{"cm-0", "cm-1"},
			listed: &ListedMembers{Offset: 0, Count: 2, Of: 5}, footnote: "Members 1 to 2 of 5 listed; --offset=2 for the next ones.\n"},
		{name: "a middle page", members: 5, page: Page{Offset: 2, Limit: 2}, want: []string{"cm-2", "cm-3"},
			listed: &ListedMembers{Offset: 2, Count: 2, Of: 5}, footnote: "Members 3 to 4 of 5 listed; --offset=4 for the next ones.\n"},
		{name: "the last page, short", members: 5, page: Page{Offset: 4, Limit: 2}, want: []string{"cm-4"},
			listed: &ListedMembers{Offset: 4, Count: 1, Of: 5}, footnote: "Members 5 to 5 of 5 listed.\n"},
		{name: "an offset alone lists the rest", members: 5, page: Page{Offset: 3}, want: []string{"cm-3", "cm-4"},
			listed: &ListedMembers{Offset: 3, Count: 2, Of: 5}, footnote: "Members 4 to 5 of 5 listed.\n"},
		{name: "past the end", members: 5, page: Page{Offset: 9, Limit: 2},
			listed: &ListedMembers{Offset: 5, Count: 0, Of: 5}, footnote: "No members listed: --offset=5 skips all 5.\n"},
		{name: "a set without members", members: 0, page: Page{Limit: 2}, listed: &ListedMembers{}},
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
	for _, p := range []Page{{Offset: -1}, {Limit: -1}} {
		if err := p.validate(); err == nil || !strings.Contains(err.Error(), "0 or more") {
			t.Errorf("%+v: %v, want a refusal", p, err)
		}
	}
	if err := (Page{Offset: 3, Limit: 2}).validate(); err != nil {
		t.Errorf("a page was refused: %v", err)
	}
}

func TestPageBounds(t *testing.T) {
	for _, tc := range []struct {
		name             string
		page             Page
		total            int
		wantFrom, wantTo int
	}{
		{"whole", Page{}, 5, 0, 5},
		{"first page", Page{Limit: 2}, 5, 0, 2},
		{"offset alone", Page{Offset: 3}, 5, 3, 5},
		{"past the end", Page{Offset: 9, Limit: 2}, 5, 5, 5},
		{"past the end, clamped: the last page", Page{Offset: 9, Limit: 2, Clamp: true}, 5, 4, 5},
		{"past the end of a full last page, clamped", Page{Offset: 8, Limit: 2, Clamp: true}, 4, 2, 4},
		{"no members, clamped", Page{Offset: 2, Limit: 2, Clamp: true}, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if from, to := tc.page.bounds(tc.total); from != tc.wantFrom || to != tc.wantTo {
				t.Errorf("bounds(%d) = [%d, %d), want [%d, %d)", tc.total, from, to, tc.wantFrom, tc.wantTo)
			}
		})
	}
}

func TestJudgedHealth(t *testing.T) {
	rows := []MemberHealth{
		{Name: "a", Health: "Current", Proof: proofRecorded},
		{Name: "b", Health: "InProgress", Proof: proofRecorded},
		{Name: "c", Health: "Current", Proof: proofLabel},
		{Name: "d", Proof: proofRecorded}, // not judged
	}
	for _, tc := range []struct {
		name       string
		from, to   int
		labelOnly  bool
		want       string
		wantJudged *int
	}{
		{"every member judged", 0, 4, true, "2/4 ready", nil},
		{"a page", 0, 2, true, "1/2 ready (judged 2 of 4)", ptr.To(2)},
		{"proven members only", 0, 3, false, "1/2 ready (judged 2 of 3)", ptr.To(2)},
		{"every proven member judged", 0, 2, false, "1/2 ready (judged 2 of 3)", ptr.To(2)},
		{"an empty page", 4, 4, true, "0/0 ready (judged 0 of 4)", ptr.To(0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, judged := judgedHealth(rows, tc.from, tc.to, tc.labelOnly)
			if got != tc.want || !cmp.Equal(judged, tc.wantJudged) {
				t.Errorf("judgedHealth = %q, %v; want %q, %v", got, ptrString(judged), tc.want, ptrString(tc.wantJudged))
			}
		})
	}
}

func TestApplyOrder(t *testing.T) {
	members := []MemberHealth{
		{Kind: "ConfigMap", Name: "foreign", Proof: proofLabel},
		{Kind: "Service", Name: "b", Group: 1},
		{Kind: "ConfigMap", Namespace: "z", Name: "a", Group: 1},
		{Kind: "ConfigMap", Namespace: "a", Name: "b", Group: 1},
		{Kind: "Namespace", Name: "shop"},
	}
	got := inOrderNames(members)
	want := []string{"Namespace/shop", "ConfigMap/a/b", "ConfigMap/z/a", "Service/b", "ConfigMap/foreign"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("apply order (-want +got):\n%s", diff)
	}
}

// inOrderNames sorts members in ApplyOrder and names them Kind/namespace/name.
func inOrderNames(members []MemberHealth) []string {
	sorted := slices.Clone(members)
	slices.SortStableFunc(sorted, ApplyOrder)
	out := make([]string, len(sorted))
	for i, m := range sorted {
		out[i] = strings.Join(slices.DeleteFunc([]string{m.Kind, m.Namespace, m.Name}, func(s string) bool { return s == "" }), "/")
	}
	return out
}

func ptrString(n *int) string {
	if n == nil {
		return "nil"
	}
	return fmt.Sprint(*n)
}

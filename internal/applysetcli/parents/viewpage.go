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
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/applyset-operator/applyset-operator/internal/membership"
)

// Page is the part of a set's members a view lists and judges: a big
// set's members are read whole a page at a time, and counted from the
// metadata listed.
type Page struct {
	// Offset is how many members come before the page; Limit the most it
	// holds (0: all from Offset).
	Offset, Limit int
	// Order sorts the members before the page is taken; nil keeps them as listed.
	Order func(a, b MemberHealth) int
	// Clamp takes the last page when Offset is past the members, as a
	// page number past the last does on the ui.
	Clamp bool
}

func (p Page) validate() error {
	if p.Offset < 0 || p.Limit < 0 {
		return errors.New("--offset and --limit must be 0 or more")
	}
	return nil
}

// whole says the page holds every member, so nothing needs listing apart.
func (p Page) whole() bool { return p.Offset == 0 && p.Limit == 0 }

// bounds are the indexes [from, to) of the page among total members.
func (p Page) bounds(total int) (from, to int) {
	from = min(max(p.Offset, 0), total)
	if p.Clamp && p.Limit > 0 && from == total && total > 0 {
		from = (total - 1) / p.Limit * p.Limit
	}
	to = total
	if p.Limit > 0 {
		to = min(from+p.Limit, total)
	}
	return from, to
}

// paged returns v listing only the members of page p.
func (p Page) paged(v View) View {
	if p.whole() {
		return v
	}
	total := len(v.MemberList)
	from, to := p.bounds(total)
	v.MemberList = v.MemberList[from:to]
	v.Listed = &ListedMembers{Offset: from, Count: to - from, Of: total}
	return v
}

// span is the indexes [from, to).
func span(from, to int) []int {
	out := make([]int, 0, max(to-from, 0))
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// inOrder sorts rows by order, and members with them, and returns members
// as sorted; nil order keeps both as they are.
func inOrder(members []membership.Member, rows []MemberHealth, order func(a, b MemberHealth) int) []membership.Member {
	if order == nil {
		return members
	}
	at := every(len(rows))
	slices.SortStableFunc(at, func(i, j int) int { return order(rows[i], rows[j]) })
	sortedMembers, sortedRows := make([]membership.Member, len(at)), make([]MemberHealth, len(at))
	for k, i := range at {
		sortedMembers[k], sortedRows[k] = members[i], rows[i]
	}
	copy(rows, sortedRows)
	return sortedMembers
}

// judgedHealth sums the health of the counted members among rows that were
// judged, those in [from, to), and says how many of them were when fewer
// than all: 48/50 ready (judged 50 of 300). Objects that only carry the
// label count when labelOnly says so.
func judgedHealth(rows []MemberHealth, from, to int, labelOnly bool) (string, *int) {
	var judged []MemberHealth
	counted := 0
	for i, m := range rows {
		if !labelOnly && m.LabelOnly() {
			continue
		}
		counted++
		if i >= from && i < to {
			judged = append(judged, m)
		}
	}
	if len(judged) == counted {
		return healthOf(judged), nil
	}
	n := len(judged)
	return fmt.Sprintf("%s (judged %d of %d)", healthOf(judged), n, counted), &n
}

// ApplyOrder orders members as a set's page lists them: proven members
// before the rest, then by apply group, kind, namespace and name.
func ApplyOrder(a, b MemberHealth) int {
	return cmp.Or(cmp.Compare(labelOnlyRank(a), labelOnlyRank(b)), cmp.Compare(a.Group, b.Group),
		cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

func labelOnlyRank(m MemberHealth) int {
	if m.LabelOnly() {
		return 1
	}
	return 0
}

// ListedMembers says which members a paged view lists, in the order of
// its table.
type ListedMembers struct {
	// Offset is how many members come before the first listed.
	Offset int `json:"offset"`
	// Count is how many are listed.
	Count int `json:"count"`
	// Of is how many there are.
	Of int `json:"of"`
}

// printListed tells which members a paged table lists, and how to ask
// for the next ones.
func printListed(w io.Writer, l *ListedMembers) {
	if l == nil || l.Of == 0 {
		return
	}
	switch {
	case l.Count == 0:
		fmt.Fprintf(w, "No members listed: --offset=%d skips all %d.\n", l.Offset, l.Of)
	case l.Offset+l.Count < l.Of:
		fmt.Fprintf(w, "Members %d to %d of %d listed; --offset=%d for the next ones.\n", l.Offset+1, l.Offset+l.Count, l.Of, l.Offset+l.Count)
	default:
		fmt.Fprintf(w, "Members %d to %d of %d listed.\n", l.Offset+1, l.Offset+l.Count, l.Of)
	}
}

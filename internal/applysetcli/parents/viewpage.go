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
	"errors"
	"fmt"
	"io"
)

// memberPage is the part of a set's members view lists: a big set's
// table is read a page at a time. Health still counts every member.
type memberPage struct {
	offset, limit int
}

func (p memberPage) validate() error {
	if p.offset < 0 || p.limit < 0 {
		return errors.New("--offset and --limit must be 0 or more")
	}
	return nil
}

// paged returns v listing only the members of page p.
func (p memberPage) paged(v View) View {
	if p.offset == 0 && p.limit == 0 {
		return v
	}
	total := len(v.MemberList)
	from := min(p.offset, total)
	to := total
	if p.limit > 0 {
		to = min(from+p.limit, total)
	}
	v.MemberList = v.MemberList[from:to]
	v.Listed = &ListedMembers{Offset: from, Count: to - from, Of: total}
	return v
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

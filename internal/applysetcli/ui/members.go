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
	"cmp"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strconv"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/parents"
)

const (
	// pageSize is how many members one page of the members table lists.
	pageSize = 200
	// graphMembers is the most members the graph draws one by one; a bigger
	// set is drawn as one node per group, kind and health, with its count.
	graphMembers = 150
)

// member is a row of the members table: a member and its anchor.
type member struct {
	parents.MemberHealth
	ID   string // the row's id, which the graph's nodes link to
	Owns string // what it owns through controller references, folded under it
}

// memberPage is one page of a set's members in apply order, and the graph.
type memberPage struct {
	Rows []member
	// Page counts from 1, of Pages.
	Page, Pages int
	Groups      int         // how many apply groups the members fall in
	Graph       template.JS // the graph's data, as graph.js reads it
}

// graph is what graph.js draws.
type graph struct {
	Groups []graphGroup `json:"groups"`
	Nodes  []graphNode  `json:"nodes"`
	Edges  []graphEdge  `json:"edges"`
}

type graphGroup struct {
	Index int    `json:"index"`
	Label string `json:"label"`
}

type graphNode struct {
	ID      string `json:"id"`
	Label   string `json:"label"`
	Health  string `json:"health"`
	Message string `json:"message,omitempty"`
	Group   int    `json:"group"`
	Foreign bool   `json:"foreign"`
	Count   int    `json:"count"`
	Href    string `json:"href,omitempty"`
	Owns    string `json:"owns,omitempty"`
}

type graphEdge struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// inApplyOrder sorts members by apply group, then by kind, namespace and
// name, as the set's page lists them; proven members before the rest.
func inApplyOrder(members []parents.MemberHealth) []member {
	out := make([]member, len(members))
	for i, m := range members {
		out[i] = member{MemberHealth: m}
	}
	slices.SortStableFunc(out, func(a, b member) int { return parents.ApplyOrder(a.MemberHealth, b.MemberHealth) })
	for i := range out {
		out[i].ID = "member-" + strconv.Itoa(i+1)
	}
	return out
}

// pageOf is page n (from 1) of the members, with what each member of the
// page owns as ownsOf says, and the graph of them all: one node a member
// when there are few, else one node per group, kind and health.
func pageOf(members []parents.MemberHealth, n int, ownsOf func([]parents.MemberHealth) []string) (memberPage, error) {
	all := inApplyOrder(members)
	p := memberPage{Pages: max(1, (len(all)+pageSize-1)/pageSize)}
	p.Page = min(max(n, 1), p.Pages)
	p.Rows = all[min((p.Page-1)*pageSize, len(all)):min(p.Page*pageSize, len(all))]
	rows := make([]parents.MemberHealth, len(p.Rows))
	for i, m := range p.Rows {
		rows[i] = m.MemberHealth
	}
	for i, owns := range ownsOf(rows) {
		p.Rows[i].Owns = owns // p.Rows shares all's array: the graph shows it too
	}
	g := graphOf(all, p.Page)
	p.Groups = len(g.Groups)
	data, err := json.Marshal(g)
	if err != nil {
		return p, err
	}
	p.Graph = template.JS(data) //nolint:gosec // json.Marshal escapes <, > and &, so no text can end the script element
	return p, nil
}

// pageAt is the page (from 1) that n asks for, as parents.Page takes
// it: a page past the last is the last.
func pageAt(n int) parents.Page {
	return parents.Page{Offset: (max(n, 1) - 1) * pageSize, Limit: pageSize, Order: parents.ApplyOrder, Clamp: true}
}

func graphOf(all []member, page int) graph {
	g := graph{Nodes: []graphNode{}, Edges: []graphEdge{}}
	groups := map[int]bool{}
	for _, m := range all {
		groups[m.Group] = true
	}
	for _, i := range slices.Sorted(maps.Keys(groups)) {
		g.Groups = append(g.Groups, graphGroup{Index: i, Label: "Group " + strconv.Itoa(i+1)})
	}
	if len(all) > graphMembers {
		return aggregate(g, all)
	}
	ids := map[string]string{} // the member's Ref -> node id
	for i, m := range all {
		ids[m.Ref()] = m.ID
		href := "#" + m.ID
		if (i / pageSize) != page-1 {
			href = "?page=" + strconv.Itoa(i/pageSize+1) + href
		}
		g.Nodes = append(g.Nodes, graphNode{ID: m.ID, Label: m.Kind + " " + m.Name, Health: m.Health, Message: m.Message,
			Group: m.Group, Foreign: m.LabelOnly(), Count: 1, Href: href, Owns: m.Owns})
	}
	for _, m := range all {
		for _, dep := range m.DependsOn {
			if from, ok := ids[dep]; ok {
				g.Edges = append(g.Edges, graphEdge{From: from, To: m.ID})
			}
		}
	}
	return g
}

// notJudged is the health the graph shows for members off the page: only
// the page's members are read whole and judged.
const notJudged = "NotJudged"

// aggregate draws a big set as one node per group, kind and health.
func aggregate(g graph, all []member) graph {
	at := map[graphNode]int{} // the node without its count -> its index
	for _, m := range all {
		key := graphNode{Label: m.Kind, Health: cmp.Or(m.Health, notJudged), Group: m.Group, Foreign: m.LabelOnly()}
		i, ok := at[key]
		if !ok {
			i = len(g.Nodes)
			at[key] = i
			key.ID = fmt.Sprintf("n%d", i+1)
			g.Nodes = append(g.Nodes, key)
		}
		g.Nodes[i].Count++
	}
	return g
}

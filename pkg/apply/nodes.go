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

package apply

// nodeBound returns a number no smaller than the nodes a YAML or JSON
// document decodes to, aliases expanded, or stops as soon as that number
// passes most (returning it). It reads the bytes once and allocates only
// for anchor names, so a document of millions of tiny maps is refused
// before the decoder builds them.
//
// Every node but the root is introduced by an indicator: a block sequence
// entry ("- "), a mapping key or value (":" and "?"), or the start of, or
// a separator in, a flow collection ("[", "{", ","); an alias ("*a")
// repeats its anchored node. Each indicator counts the most nodes it can
// introduce wherever it stands, quoted or not, so the bound never falls
// short of the decoder, at the price of counting a colon or comma inside a
// string as if it were one. An alias counts everything between its anchor
// and itself, which holds the anchored node whole (a node cannot hold an
// alias of itself); the earliest anchor of a name is kept, so a false
// anchor in a string can only raise the count.
func nodeBound(doc []byte, most int64) int64 {
	n := int64(1) // the root
	anchors := map[string]int64{}
	for i := 0; i < len(doc) && n <= most; i++ {
		switch c := doc[i]; c {
		case '-':
			if i+1 == len(doc) || isBlank(doc[i+1]) {
				n++
			}
		case '?', ':', '{':
			n += 2
		case ',', '[':
			n += 3
		case '&', '*':
			if i == 0 || startsNode(doc[i-1]) {
				n += anchored(anchors, c, nameAt(doc, i+1), n)
			}
		}
	}
	return n
}

// nameAt reads the anchor or alias name that starts at doc[i]. The scan
// goes on to read the name's bytes as well: what looked like an anchor may
// be a plain scalar's "&" ("0 &: x" is the key "0 &"), and its "name" may
// hold the indicators that introduce nodes.
func nameAt(doc []byte, i int) string {
	end := i
	for end < len(doc) && !isBlank(doc[end]) && !isFlowIndicator(doc[end]) {
		end++
	}
	return string(doc[i:end])
}

// anchored records an anchor (c '&') seen when n nodes were counted, and
// gives the nodes an alias (c '*') may repeat: all counted since its
// anchor, and its root. A name is never empty: "* " and " & " in prose
// are neither.
func anchored(anchors map[string]int64, c byte, name string, n int64) int64 {
	if name == "" {
		return 0
	}
	at, ok := anchors[name]
	switch {
	case c == '*' && ok:
		return n - at + 1
	case c == '&' && !ok:
		anchors[name] = n
	}
	return 0
}

func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

func isFlowIndicator(c byte) bool {
	return c == ',' || c == '[' || c == ']' || c == '{' || c == '}'
}

// startsNode tells whether a node may begin right after c.
func startsNode(c byte) bool {
	return isBlank(c) || c == '[' || c == '{' || c == ',' || c == ':'
}

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
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// Summary is one parent as list and verify show it.
type Summary struct {
	Namespace string   `json:"namespace,omitempty"`
	Parent    string   `json:"parent"`
	ID        string   `json:"id"`
	Tooling   string   `json:"tooling,omitempty"`
	Members   int      `json:"members"`
	Kinds     []string `json:"kinds,omitempty"`
	// Findings are what verification found wrong with the ApplySet contract.
	Findings []Finding `json:"findings,omitempty"`
	// Health is the members' health as kstatus judges it: 52/59 ready.
	Health  string    `json:"health,omitempty"`
	Created time.Time `json:"creationTimestamp"`
}

// Finding is a problem verification found, for people and for programs.
type Finding struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

func summarize(p membership.Parent, v membership.Verdict) Summary {
	s := Summary{
		Namespace: p.Ref.Namespace, Parent: cli.ParentName(p.Ref), ID: p.Object.Labels[applyset.IDLabel],
		Members: len(v.Members), Created: p.Object.CreationTimestamp.Time,
	}
	if v.Parent.Tooling.Name != "" {
		s.Tooling = v.Parent.Tooling.String()
	}
	for gk := range v.Kinds {
		s.Kinds = append(s.Kinds, gk.String())
	}
	slices.Sort(s.Kinds)
	for _, pr := range v.Problems {
		s.Findings = append(s.Findings, Finding{Reason: pr.Reason, Message: pr.Message})
	}
	return s
}

// clean reports whether verification found nothing wrong with the contract.
func (s Summary) clean() bool { return len(s.Findings) == 0 }

// FindingReasons is the FINDINGS column: <none>, or the reasons of the findings.
func (s Summary) FindingReasons() string {
	if s.clean() {
		return "<none>"
	}
	reasons := make([]string, 0, len(s.Findings))
	for _, f := range s.Findings {
		if !slices.Contains(reasons, f.Reason) {
			reasons = append(reasons, f.Reason)
		}
	}
	return strings.Join(reasons, ",")
}

// listed is what list found: a Result printed as a table, as kubectl get
// prints one, with a NAMESPACE column under -A (wide adds the ID, kinds and
// the findings' messages), as names, or, under -o, as a v1 List for
// kubectl's printers (JSON, YAML, jsonpath...).
type listed struct {
	summaries     []Summary
	allNamespaces bool
}

// Items are the parents, as -o prints them.
func (l listed) Items() any { return l.summaries }

// Nothing says, under text output, that there are no parents.
func (l listed) Nothing() string {
	if len(l.summaries) == 0 {
		return "No ApplySets found."
	}
	return ""
}

// Text prints the table.
func (l listed) Text(w io.Writer) error { return l.Format(w, "") }

// Format prints the table, with more columns when wide, or only the parents' names.
func (l listed) Format(w io.Writer, format string) error {
	if format == "name" {
		for _, s := range l.summaries {
			fmt.Fprintln(w, s.Parent)
		}
		return nil
	}
	return cli.PrintTable(w, summaryTable(l.summaries), format == "wide", l.allNamespaces)
}

// summaryTable holds every column; the printer shows those of priority 1 with -o wide.
func summaryTable(items []Summary) *metav1.Table {
	t := &metav1.Table{ColumnDefinitions: append(cli.Columns(0, "Name", "Tooling", "Members", "Findings", "Health", "Age"),
		cli.Columns(1, "ID", "Kinds", "Messages")...)}
	for _, s := range items {
		messages := make([]string, 0, len(s.Findings))
		for _, f := range s.Findings {
			messages = append(messages, f.Reason+": "+f.Message)
		}
		row := metav1.TableRow{Cells: []any{s.Parent, s.Tooling, int64(s.Members), s.FindingReasons(), orNone(s.Health), age(s.Created),
			s.ID, strings.Join(s.Kinds, ","), strings.Join(messages, "; ")}}
		row.Object.Object = namespaced(s.Namespace)
		t.Rows = append(t.Rows, row)
	}
	return t
}

// namespaced carries a row's namespace to the table printer.
func namespaced(namespace string) runtime.Object {
	obj := &metav1.PartialObjectMetadata{}
	obj.SetNamespace(namespace)
	return obj
}

func age(t time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(t))
}

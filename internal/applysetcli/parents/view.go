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
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// View is one parent in full: its contract, its members with their health,
// and what verification found.
type View struct {
	Summary              `json:",inline"`
	HintKinds            []string       `json:"hintKinds,omitempty"`
	AdditionalNamespaces []string       `json:"additionalNamespaces,omitempty"`
	MemberList           []MemberHealth `json:"memberList,omitempty"`
	// Listed says which members MemberList holds when the view was asked
	// for a page of them (--offset, --limit); nil when it holds them all.
	Listed *ListedMembers `json:"listed,omitempty"`
	// Judged is how many members Health judged, when it judged fewer than
	// all: those of the page listed. Nil when it judged every member.
	Judged *int `json:"judged,omitempty"`
	// Window is where one of the operator's sets stands with its delivery windows.
	Window string `json:"window,omitempty"`
	// History is what one of the operator's sets' last runs did, newest first.
	History []applyv1alpha1.HistoryEntry `json:"history,omitempty"`
	// Mirrors are the copies Kubernetes keeps of member Services (their
	// Endpoints and EndpointSlices): they carry the set's label and are no
	// members, never written nor pruned for the set.
	Mirrors []string `json:"mirrors,omitempty"`
}

// MemberHealth is a member and its health as kstatus judges it.
type MemberHealth struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Health    string `json:"health"`
	// Proof says why the member is the set's: its UID recorded by the
	// operator's set, or its label applied by the set's tool (the weaker
	// proof a set without an inventory affords); or that it only carries the label.
	Proof   string `json:"proof"`
	Message string `json:"message,omitempty"`
	// Group is the member's place in the apply order, from 0: the group the
	// operator's engine applies it in, by its kind and its depends-on
	// annotation as it is in the cluster.
	Group int `json:"group"`
	// DependsOn are the members it names in its depends-on annotation.
	DependsOn []string `json:"dependsOn,omitempty"`
	dependsOn string   // the annotation as read
}

// LabelOnly says the object only carries the set's label: no proven member.
func (m MemberHealth) LabelOnly() bool { return m.Proof == proofLabel }

// Ref names the member as DependsOn names members.
func (m MemberHealth) Ref() string {
	return applyset.ObjectName(schema.ParseGroupKind(m.Kind), m.Namespace, m.Name)
}

func newViewCommand(o *cli.Options) *cobra.Command {
	output := cli.NewOutput().WithColumns()
	var page Page
	cmd := &cobra.Command{
		Use:   "view PARENT",
		Short: "Show one ApplySet: its contract fields, each member with its health, and the findings",
		Long: "Show one ApplySet parent, whatever tool wrote it: its ID, tooling, hint kinds and namespaces, each member with " +
			"its health as kstatus judges it and the proof that it is a member, and what verification found. For one of the " +
			"operator's sets, also where it stands with its delivery windows and what its last runs did (status.history). " +
			"--offset and --limit list one page of a big set's members: only those are read whole and judged, and Health " +
			"says how many it judged of all (judged 100 of 5000); the rest are counted from their metadata.",
		Example: `  # A set kubectl wrote with --applyset=secret/web
  kubectl applyset view secret/web -n shop

  # One of the operator's own sets
  kubectl applyset view applyset/web -n shop -o yaml

  # The members that are not ready yet
  kubectl applyset view secret/web -n shop -o jsonpath='{range .memberList[?(@.health!="Current")]}{.kind} {.name}{"\n"}{end}'

  # The second hundred members of a big set
  kubectl applyset view applyset/rbac -n platform --offset=100 --limit=100`,
		// Checked before any request, as the flags are.
		PreRunE: func(*cobra.Command, []string) error { return page.validate() },
	}
	cli.Verb{Sets: cli.AnyParent, Output: output, Run: func(ctx context.Context, s *cli.Scope) (cli.Result, error) {
		out, err := ViewOf(ctx, s.Streams.ErrOut, s.Clients, s.Ref, page)
		return page.paged(out), err
	}}.Bind(o, cmd)
	cmd.Flags().IntVar(&page.Offset, "offset", 0, "Skip this many members of the table first, to page through a big set.")
	cmd.Flags().IntVar(&page.Limit, "limit", 0, "List and judge at most this many members (0: all); the rest are counted, not judged.")
	return cmd
}

// ViewOf is what view shows of the parent ref: its contract, each member
// with its proof and apply group, and the findings, read as the user of c.
// Only the members of page are read whole and judged; the others are
// counted from the metadata listed, and Health says so: judged 200 of 100,000.
func ViewOf(ctx context.Context, errOut io.Writer, c *cli.Clients, ref membership.ParentRef, page Page) (View, error) {
	p, v, err := verifyParent(ctx, errOut, c, ref)
	if err != nil {
		return View{}, err
	}
	proofs, err := proofsOf(ctx, c, ref, v)
	if err != nil {
		return View{}, err
	}
	out := View{Summary: summarize(p, v), MemberList: rowsOf(v.Members)}
	for i, m := range v.Members {
		out.MemberList[i].Proof = proofs(m)
	}
	if err := applyGroups(v.Members, out.MemberList); err != nil {
		fmt.Fprintf(errOut, "Warning: the members are grouped by kind alone: %v\n", err)
	}
	members := inOrder(v.Members, out.MemberList, page.Order)
	from, to := page.bounds(len(members))
	judge(ctx, c, members, checkersFor(members, checkerOf(ctx, c, ref)), out.MemberList, span(from, to))
	// As the operator counts them (see countedMembers): its sets count proven members only.
	out.Health, out.Judged = judgedHealth(out.MemberList, from, to, !cli.IsOperatorSet(ref))
	out.HintKinds = sorted(v.HintKinds, func(gk schema.GroupKind) string { return gk.String() })
	out.AdditionalNamespaces = sets.List(v.Parent.Scope.AdditionalNamespaces)
	if status := operatorStatus(ctx, c, ref); status != nil {
		out.Window, out.History = describeWindow(status.Window), status.History
	}
	for _, m := range v.Mirrors {
		out.Mirrors = append(out.Mirrors, applyset.ObjectName(m.GroupKind, m.Namespace, m.Name))
	}
	return out, nil
}

// Kind is the kind of a View as -o json, yaml and the templates print it.
func (View) Kind() string { return "ParentView" }

// Text prints the view for people.
func (v View) Text(w io.Writer) error { return printView(w, v) }

func printView(w io.Writer, v View) error {
	fmt.Fprintf(w, "Parent:                %s%s\n", v.Parent, cli.InNamespace(v.Namespace))
	fmt.Fprintf(w, "ID:                    %s\n", v.ID)
	fmt.Fprintf(w, "Tooling:               %s\n", orNone(v.Tooling))
	fmt.Fprintf(w, "Hint kinds:            %s\n", orNone(strings.Join(v.HintKinds, ",")))
	fmt.Fprintf(w, "Additional namespaces: %s\n", orNone(strings.Join(v.AdditionalNamespaces, ",")))
	fmt.Fprintf(w, "Members:               %d\n", v.Members)
	fmt.Fprintf(w, "Health:                %s\n", orNone(v.Health))
	if v.Window != "" {
		fmt.Fprintf(w, "Window:                %s\n", v.Window)
	}
	if len(v.MemberList) > 0 {
		t := &metav1.Table{ColumnDefinitions: cli.Columns(0, "Kind", "Namespace", "Name", "Health", "Proof", "Message")}
		for _, m := range v.MemberList {
			t.Rows = append(t.Rows, metav1.TableRow{Cells: []any{m.Kind, m.Namespace, m.Name, m.Health, m.Proof, m.Message}})
		}
		fmt.Fprintln(w)
		if err := cli.PrintTable(w, t, false, false); err != nil {
			return err
		}
	}
	printListed(w, v.Listed)
	if err := printHistory(w, v.History); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if v.clean() {
		fmt.Fprintln(w, "Findings: none")
		return nil
	}
	fmt.Fprintln(w, "Findings:")
	for _, f := range v.Findings {
		fmt.Fprintf(w, "  %s: %s\n", f.Reason, f.Message)
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// sorted lists a set's items as strings, sorted.
func sorted[T comparable](s sets.Set[T], str func(T) string) []string {
	out := make([]string, 0, s.Len())
	for item := range s {
		out = append(out, str(item))
	}
	slices.Sort(out)
	return out
}

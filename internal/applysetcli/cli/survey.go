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

package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/applyset-operator/applyset-operator/internal/membership"
)

// Within is which parents a verb looks at: those of the namespace and the
// cluster-scoped ones, or of every namespace, and of those only the ones
// whose labels match Selector.
type Within struct {
	AllNamespaces bool
	Selector      string
}

// AddFlags adds -A and -l to cmd.
func (w *Within) AddFlags(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&w.AllNamespaces, "all-namespaces", "A", false, "Look at the parents of every namespace, and the cluster-scoped ones.")
	cmd.Flags().StringVarP(&w.Selector, "selector", "l", "", "Only parents whose labels match this selector (e.g. team=web).")
}

// SnapshotOptions reads the parents of w as the user of c, refusing a
// selector that does not parse.
func (w Within) SnapshotOptions(c *Clients) (membership.SnapshotOptions, error) {
	if _, err := labels.Parse(w.Selector); err != nil {
		return membership.SnapshotOptions{}, fmt.Errorf("--selector: %w", err)
	}
	sopts := membership.SnapshotOptions{ParentSelector: w.Selector}
	if !w.AllNamespaces {
		sopts.Namespace = c.Namespace
	}
	return sopts, nil
}

// Includes reports whether p is one of w's parents: a snapshot of a
// namespace also holds the cluster-scoped parents, and members elsewhere.
func (w Within) Includes(c *Clients, p membership.Parent) bool {
	return w.AllNamespaces || p.Ref.Namespace == "" || p.Ref.Namespace == c.Namespace
}

// Survey is the scaffold of the verbs that look at the parents of a scope
// rather than at one (list, verify): it owns -A and -l, the optional PARENT
// of a verb that takes one, and, as Verb does, --yes and --dry-run for a
// verb that writes and -o; it prints Run's Result, and a Check that found
// something ends with ExitFindings.
type Survey struct {
	// One takes an optional PARENT, to look at it alone.
	One bool
	// Writes adds --yes, with YesHelp, and --dry-run.
	Writes  bool
	YesHelp string
	// Output is the verb's -o, which prints Run's Result.
	Output *Output
	// Run does the verb's work on the parents of the Surveyed.
	Run func(ctx context.Context, s *Surveyed) (Result, error)
}

// Surveyed is what a Survey's Run works on.
type Surveyed struct {
	*Options
	Clients *Clients
	Within  Within
	// Snapshot reads the parents of Within, or the namespace of Only.
	Snapshot membership.SnapshotOptions
	// Only is the PARENT named, if one was.
	Only *membership.ParentRef
	// DryRun is --dry-run; a verb that does not write never sends a dry run.
	DryRun *DryRun
	ask    *Ask
}

// Confirm asks question before a write, as Ask.Confirm does.
func (s *Surveyed) Confirm(question string) error { return s.ask.Confirm(question) }

// Includes reports whether p is one the verb looks at.
func (s *Surveyed) Includes(p membership.Parent) bool {
	if s.Only != nil {
		return p.Ref.Key() == s.Only.Key()
	}
	return s.Within.Includes(s.Clients, p)
}

// Bind makes cmd run the survey, with its flags and completion, and returns it.
func (v Survey) Bind(o *Options, cmd *cobra.Command) *cobra.Command {
	s := &Surveyed{Options: o, ask: &Ask{o: o, DryRun: &DryRun{}}} // none, for a verb that does not write
	cmd.Args = cobra.NoArgs
	if v.One {
		cmd.Args = cobra.MaximumNArgs(1)
		cmd.ValidArgsFunction = o.CompleteParent(AnyParent)
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := s.scope(cmd.Context(), args); err != nil {
			return err
		}
		r, err := v.Run(cmd.Context(), s)
		if err != nil || r == nil {
			return err
		}
		return Show(s.Streams, v.Output, r)
	}
	s.Within.AddFlags(cmd)
	if v.Output != nil {
		v.Output.AddFlags(cmd)
	}
	if v.Writes {
		s.ask = o.AddAsk(cmd, v.YesHelp, true)
	}
	s.DryRun = s.ask.DryRun
	return cmd
}

// scope connects, and reads which parents to look at into s.
func (s *Surveyed) scope(ctx context.Context, args []string) error {
	c, err := s.Options.Clients()
	if err != nil {
		return err
	}
	s.Clients, s.Only = c, nil
	if s.Snapshot, err = s.Within.SnapshotOptions(c); err != nil {
		return err
	}
	if len(args) == 1 {
		ref, err := ResolveParent(ctx, c, args[0])
		if err != nil {
			return err
		}
		s.Only, s.Snapshot.Namespace = &ref, ref.Namespace
	}
	return nil
}

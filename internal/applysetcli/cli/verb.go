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

	"github.com/spf13/cobra"

	"github.com/applyset-operator/applyset-operator/internal/membership"
)

// Verb is the one scaffold of the verbs that act on one PARENT: it connects,
// names the parent, refuses one the verb does not act on, and, for a verb
// that writes, owns --yes, --dry-run and the question; for a verb that
// prints a result, -o. Run does the verb's own work with what the scaffold
// read and returns its Result, so that the cobra command is a thin caller
// and the work a function of a Scope.
type Verb struct {
	// Sets are the parents the argument completes to, and, when
	// OperatorSets, the only ones the verb takes.
	Sets Sets
	// Unread takes the argument as named, without reading it: one of the
	// operator's sets need not be a parent yet (one not applied, or being
	// deleted). Otherwise it must name a parent (ResolveParent).
	Unread bool
	// NotOperatorSet ends the NotOperatorSetError that refuses a parent of
	// another tool when Sets is OperatorSets: "NAME is not one of the
	// operator's sets" and this.
	NotOperatorSet string
	// Writes adds --yes, with YesHelp, and --dry-run.
	Writes  bool
	YesHelp string
	// Output is the verb's -o, which prints Run's Result; nil for a verb
	// that prints as it goes and returns none.
	Output *Output
	// Run does the verb's work, and returns what it found, or nil.
	Run func(ctx context.Context, s *Scope) (Result, error)
}

// Scope is what a Verb's Run works on.
type Scope struct {
	*Options
	Clients *Clients
	Ref     membership.ParentRef
	// Name names the parent in messages, with its namespace.
	Name string
	// DryRun is --dry-run; a verb that does not write never sends a dry run.
	DryRun *DryRun
	ask    *Ask
}

// Confirm asks question before a write, as Ask.Confirm does.
func (s *Scope) Confirm(question string) error { return s.ask.Confirm(question) }

// Bind makes cmd run the verb on its one argument, with the verb's flags and
// completion, and returns it.
func (v Verb) Bind(o *Options, cmd *cobra.Command) *cobra.Command {
	s := &Scope{Options: o, ask: &Ask{o: o, DryRun: &DryRun{}}} // none, for a verb that does not write
	if v.Writes {
		s.ask = o.AddAsk(cmd, v.YesHelp, true)
	}
	s.DryRun = s.ask.DryRun
	cmd.Args = cobra.ExactArgs(1)
	cmd.ValidArgsFunction = o.CompleteParent(v.Sets)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := v.scope(cmd.Context(), s, args[0]); err != nil {
			return err
		}
		r, err := v.Run(cmd.Context(), s)
		if err != nil || r == nil {
			return err
		}
		return Show(s.Streams, v.Output, r)
	}
	if v.Output != nil {
		v.Output.AddFlags(cmd)
	}
	return cmd
}

// scope connects and reads the parent arg names into s.
func (v Verb) scope(ctx context.Context, s *Scope, arg string) error {
	c, err := s.Options.Clients()
	if err != nil {
		return err
	}
	s.Clients = c
	if v.Unread {
		s.Ref, err = ParentOf(c, arg)
	} else {
		s.Ref, err = ResolveParent(ctx, c, arg)
	}
	if err != nil {
		return err
	}
	s.Name = ParentName(s.Ref) + InNamespace(s.Ref.Namespace)
	if v.Sets == OperatorSets && !IsOperatorSet(s.Ref) {
		return NotOperatorSetError{Name: s.Name, Instead: v.NotOperatorSet}
	}
	return nil
}

// AsItGoes is the Run of a verb that prints as it goes, between its
// questions, and returns no Result.
func AsItGoes(run func(ctx context.Context, s *Scope) error) func(ctx context.Context, s *Scope) (Result, error) {
	return func(ctx context.Context, s *Scope) (Result, error) { return nil, run(ctx, s) }
}

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
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// The exit statuses of every verb, which scripts rely on
// (docs/reference/plugin.md). 0 is success.
const (
	// ExitFindings is what a check found: verify's findings, diff's
	// differences, validate's invalid manifests. Nothing else uses it, so a
	// CI job can tell a finding from a typo.
	ExitFindings = 1
	// ExitFailure is an error, usage errors included, and a write refused
	// because nobody could be asked and --yes was not given.
	ExitFailure = 2
	// ExitDeclined is a question before a write answered no: nothing was
	// written. It is neither success, on which a script would go on as if
	// the write were made, nor a finding or an error.
	ExitDeclined = 3
)

// ExitError ends the command with the status Code, with Err printed unless
// it is nil: a scaffold ends a verb whose Check found something with
// findings(), once the Result is printed.
type ExitError struct {
	Code int
	// Err is printed unless it is nil.
	Err error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// findings ends a verb that printed what it found with ExitFindings.
func findings() error { return &ExitError{Code: ExitFindings} }

// ExitCode is the process status for err: 0 without one, the ExitError's
// code, else ExitFailure.
func ExitCode(err error) int {
	var exit *ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.Code
	}
	return ExitFailure
}

// usageError is a command line the verb cannot run, found before any request.
type usageError struct {
	command string
	err     error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usage marks err as a usage error of cmd: it exits with ExitFailure and
// points to cmd's --help, as kubectl does.
func usage(cmd *cobra.Command, err error) error {
	return &usageError{command: cmd.CommandPath(), err: err}
}

// Execute runs the plugin as its users run it: under the exit policy, with
// the error, if any, printed to cmd's error stream. It returns the process
// status.
func Execute(ctx context.Context, cmd *cobra.Command) int {
	enforceUsage(cmd)
	err := cmd.ExecuteContext(ctx)
	var (
		exit    *ExitError
		invalid *usageError
	)
	switch {
	case errors.As(err, &invalid):
		fmt.Fprintf(cmd.ErrOrStderr(), "error: %v\nSee '%s --help' for usage.\n", err, invalid.command)
	case err != nil && (!errors.As(err, &exit) || exit.Err != nil):
		fmt.Fprintf(cmd.ErrOrStderr(), "error: %v\n", err)
	}
	return ExitCode(err)
}

// enforceUsage makes the errors cobra finds before a verb runs usage errors:
// a flag or flag value it cannot parse, arguments the verb does not take, a
// required flag missing, an unknown verb. Left alone, they exit 1, which a
// CI job reads as a finding.
func enforceUsage(root *cobra.Command) {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usage(c, err) })
	// cobra reports an unknown verb itself only for a root without Args,
	// and then before any hook runs; so the root checks it, and shows its
	// help when run alone.
	if root.Args == nil {
		root.Args = unknownVerb
	}
	if !root.Runnable() {
		root.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	}
	wrapArgs(root)
}

// wrapArgs makes the argument and required-flag errors of cmd and its verbs
// usage errors. cobra checks required flags after Args, so Args checks them
// first.
func wrapArgs(cmd *cobra.Command) {
	args := cmd.Args
	if args == nil {
		args = cobra.ArbitraryArgs
	}
	cmd.Args = func(c *cobra.Command, a []string) error {
		for _, check := range []func() error{
			func() error { return args(c, a) }, c.ValidateRequiredFlags, c.ValidateFlagGroups,
		} {
			if err := check(); err != nil {
				return usage(c, err)
			}
		}
		return nil
	}
	for _, sub := range cmd.Commands() {
		wrapArgs(sub)
	}
}

func unknownVerb(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2 // cobra's default, which only its own check sets
	}
	if suggestions := c.SuggestionsFor(args[0]); len(suggestions) > 0 {
		msg += "; did you mean " + strings.Join(suggestions, " or ") + "?"
	}
	return errors.New(msg)
}

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

// Package parents holds the verbs of `kubectl applyset` for any KEP-3659
// parent, whatever tool wrote it: list, view, verify (and its --fix),
// disband, and the preview of kubectl's apply that diff --applyset shows.
// They read parents and members as a snapshot, judge them as the operator's
// parent reconciler does, and keep findings about the contract apart from
// the members' health.
package parents

import (
	"github.com/spf13/cobra"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
)

// Commands are the verbs for any parent; diff, which previews both kinds of
// set, is made beside them.
func Commands(o *cli.Options) []*cobra.Command {
	return []*cobra.Command{newListCommand(o), newViewCommand(o), newVerifyCommand(o), newDisbandCommand(o)}
}

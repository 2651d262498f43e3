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

// Package applysets holds the verbs of `kubectl applyset` for the
// operator's own ApplySets and ClusterApplySets: approve, delete,
// release-finalizers, validate and push, and the preview that diff -f shows
// of a set's manifest. Previews run the operator's own pipeline
// (internal/setrun) with server-side dry-run, as the user.
package applysets

import (
	"github.com/spf13/cobra"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
)

// Commands are the verbs for the operator's sets; diff, which previews both
// kinds of set, is made beside them.
func Commands(o *cli.Options) []*cobra.Command {
	return []*cobra.Command{newDeleteCommand(o), newApproveCommand(o), newReleaseFinalizersCommand(o), newValidateCommand(o), newPushCommand(o)}
}

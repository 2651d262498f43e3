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

	"k8s.io/utils/ptr"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/membership"
)

// windowOf says where one of the operator's sets stands with its delivery
// windows, as the operator last found; "" for other tools' sets, a set
// without windows, or one the user may not read.
func windowOf(ctx context.Context, c *cli.Clients, ref membership.ParentRef) string {
	if !cli.IsOperatorSet(ref) {
		return ""
	}
	cl, err := c.Client()
	if err != nil {
		return ""
	}
	set, err := cli.OperatorSetOf(ctx, cl, ref)
	if err != nil {
		return ""
	}
	return describeWindow(set.GetSetStatus().Window)
}

// describeWindow is the Window line of view: held or open, by which
// window, and until when.
func describeWindow(w *applyv1alpha1.WindowStatus) string {
	if w == nil {
		return ""
	}
	state := "open"
	if ptr.Deref(w.Held, false) {
		state = "held"
	}
	if w.Window != "" {
		state += " by the " + w.Window
	}
	switch {
	case w.NextChange != "" && ptr.Deref(w.Held, false):
		state += "; next opening " + w.NextChange
	case w.NextChange != "":
		state += "; held from " + w.NextChange
	}
	return state
}

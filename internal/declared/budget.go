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

package declared

import (
	"errors"
	"fmt"

	"github.com/applyset-operator/applyset-operator/internal/kbuild"
)

// ErrBudgetExceeded marks inputs refused for what reading them would
// produce or use (a build's output or memory, the nodes of decoded YAML),
// before or as soon as it passes its bound: the set's own budget, which
// keeps one set from costing others memory. The message names the bound
// and its value.
var ErrBudgetExceeded = errors.New("budget exceeded")

// budget is an error of a set over one of its budgets; it reads as the
// error it wraps.
type budget struct{ error }

func (b budget) Unwrap() error { return b.error }

func (b budget) Is(target error) bool { return target == ErrBudgetExceeded }

// buildError marks a kustomize build stopped at one of its limits as over
// the set's budget, and says which settings bound builds.
func buildError(err error) error {
	var limit *kbuild.LimitError
	if errors.As(err, &limit) {
		return budget{fmt.Errorf("%w; the operator's --max-set-input-size, --max-set-objects and --max-build-memory bound builds", err)}
	}
	return err
}

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

package applysets

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/crdvalidate"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

func newValidateCommand(o *cli.Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "validate -f FILE|DIR",
		Short: "Check ApplySet, ClusterApplySet and CustomFeatureGates manifests offline, as the API server would",
		Long: `validate checks manifests of the operator's kinds against the very OpenAPI schemas and CEL
rules of their CRDs, built into this plugin, with the API server's own validation code: the
same field paths and messages a create would be refused with, without a cluster. It also
applies the policy that keeps a namespaced ApplySet's inline resources in its namespaces.
Fields the schema does not declare are errors, as under kubectl's default strict field
validation. The policies on which namespaces and ServiceAccounts a set may name depend on
who applies it, and only the API server checks them. Objects of other kinds are skipped.

Exit status: 0 all valid, 1 some invalid, 2 an error (a manifest could not be read).`,
		Example: `  # Check the sets of a repository before committing
  kubectl applyset validate -f deploy/ -R

  # As JSON, one item per object
  kubectl applyset validate -f applyset.yaml -o json`,
	}
	return cli.Files{MaxInputHelp: "The most bytes -f may read, after decompression.", Output: cli.NewOutput(),
		Run: func(ctx context.Context, f *cli.Read) (cli.Result, error) { return validate(ctx, f.Inputs) }}.Bind(o, cmd)
}

// verdict is the outcome for one object.
type verdict struct {
	Origin string   `json:"origin"`
	Kind   string   `json:"kind"`
	Name   string   `json:"name"`
	Valid  bool     `json:"valid"`
	Errors []string `json:"errors,omitempty"`
}

// validate checks the inputs of the operator's kinds offline; those of
// other kinds are skipped.
func validate(ctx context.Context, inputs []apply.Input) (validated, error) {
	validator, err := crdvalidate.Operator()
	if err != nil {
		return validated{}, err
	}
	var out validated
	for _, in := range inputs {
		if !validator.Knows(in.Object.GroupVersionKind()) {
			out.skipped++
			continue
		}
		out.verdicts = append(out.verdicts, check(ctx, validator, in))
	}
	return out, nil
}

func check(ctx context.Context, validator *crdvalidate.Validator, in apply.Input) verdict {
	vd := verdict{Origin: in.Origin, Kind: in.Object.GetKind(), Name: in.Object.GetName(), Valid: true}
	// kubectl applies with strict field validation by default: a field the
	// schema lacks is an error, not something the API server drops quietly.
	for _, path := range validator.UnknownFields(in.Object) {
		vd.Valid = false
		vd.Errors = append(vd.Errors, fmt.Sprintf("unknown field %q", path))
	}
	errs, err := validator.Check(ctx, in.Object)
	switch {
	case err != nil:
		vd.Valid, vd.Errors = false, append(vd.Errors, err.Error())
	case len(errs) > 0:
		vd.Valid = false
		for _, e := range errs {
			vd.Errors = append(vd.Errors, describe(e))
		}
	}
	return vd
}

// describe words a field error as the API server's 422 message lists it.
func describe(e *field.Error) string {
	if e.Field == "" {
		return e.ErrorBody()
	}
	return e.Error()
}

// validated is what validate found: a verdict for each object of the
// operator's kinds, and how many others it skipped. Invalid ones are
// findings.
type validated struct {
	verdicts []verdict
	skipped  int
}

// Items are the verdicts, as -o prints them.
func (v validated) Items() any { return v.verdicts }

// Found reports whether an object is invalid.
func (v validated) Found() bool {
	for _, vd := range v.verdicts {
		if !vd.Valid {
			return true
		}
	}
	return false
}

// Text prints a line for each valid object, and one for each error of the others.
func (v validated) Text(w io.Writer) error {
	for _, vd := range v.verdicts {
		if vd.Valid {
			fmt.Fprintf(w, "%s: %s/%s: valid\n", vd.Origin, vd.Kind, vd.Name)
			continue
		}
		for _, e := range vd.Errors {
			fmt.Fprintf(w, "%s: %s/%s: %s\n", vd.Origin, vd.Kind, vd.Name, e)
		}
	}
	return nil
}

// Notes say how many objects were not checked.
func (v validated) Notes(w io.Writer) error {
	if v.skipped == 0 {
		return nil
	}
	noun := "objects"
	if v.skipped == 1 {
		noun = "object"
	}
	_, err := fmt.Fprintf(w, "%d %s of other kinds not checked\n", v.skipped, noun)
	return err
}

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

// The exit statuses of validate.
type validateOptions struct {
	files     []string
	recursive bool
	output    *cli.Output
	maxInput  int64
}

func newValidateCommand(o *cli.Options) *cobra.Command {
	v := &validateOptions{output: cli.NewOutput()}
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
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return v.run(cmd.Context(), o)
		},
	}
	cmd.Flags().StringSliceVarP(&v.files, "filename", "f", nil, "Files or directories of manifests, or - for standard input.")
	cmd.Flags().BoolVarP(&v.recursive, "recursive", "R", false, "Read the directories of -f recursively.")
	v.output.AddFlags(cmd)
	cmd.Flags().Int64Var(&v.maxInput, "max-input-size", cli.DefaultMaxInput, "The most bytes -f may read, after decompression.")
	_ = cmd.MarkFlagRequired("filename")
	return cmd
}

// verdict is the outcome for one object.
type verdict struct {
	Origin string   `json:"origin"`
	Kind   string   `json:"kind"`
	Name   string   `json:"name"`
	Valid  bool     `json:"valid"`
	Errors []string `json:"errors,omitempty"`
}

func (v *validateOptions) run(ctx context.Context, o *cli.Options) error {
	inputs, err := cli.ReadManifests(v.files, v.recursive, o.Streams.In, v.maxInput)
	if err != nil {
		return err
	}
	validator, err := crdvalidate.Operator()
	if err != nil {
		return err
	}
	var verdicts []verdict
	skipped := 0
	for _, in := range inputs {
		if !validator.Knows(in.Object.GroupVersionKind()) {
			skipped++
			continue
		}
		verdicts = append(verdicts, check(ctx, validator, in))
	}
	if err := printVerdicts(o.Streams.Out, verdicts, v.output); err != nil {
		return err
	}
	if skipped > 0 {
		noun := "objects"
		if skipped == 1 {
			noun = "object"
		}
		fmt.Fprintf(o.Streams.ErrOut, "%d %s of other kinds not checked\n", skipped, noun)
	}
	for _, vd := range verdicts {
		if !vd.Valid {
			return cli.Findings()
		}
	}
	return nil
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

func printVerdicts(w io.Writer, verdicts []verdict, output *cli.Output) error {
	if output.Printed() {
		return output.PrintList(w, verdicts)
	}
	for _, vd := range verdicts {
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

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
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
)

// outputAPIVersion is the apiVersion of what the plugin prints that is not
// a Kubernetes object nor a list of results (view's ParentView): the
// printers, jsonpath and go-template need one. No API server serves it.
const outputAPIVersion = "applyset.dev/v1alpha1"

// Output is a verb's -o. The verb prints its own formats (its text, with
// -o empty; a table's wide; name); the others are kubectl's print flags
// (json, yaml, kyaml, jsonpath, go-template, their -file forms, with
// --template and --allow-missing-template-keys) and, where the verb offers
// them, custom-columns, printed by Print from the object the verb gives it.
type Output struct {
	// Format is the -o value.
	Format  string
	own     []string
	columns bool
	flags   *genericclioptions.PrintFlags
	printer printers.ResourcePrinter
}

// NewOutput is an -o whose formats own, besides text, the verb prints itself.
func NewOutput(own ...string) *Output {
	flags := genericclioptions.NewPrintFlags("")
	// name is a verb's own: what it prints are not objects with a kind.
	flags.NamePrintFlags = nil
	return &Output{own: own, flags: flags}
}

// WithColumns offers custom-columns, for a verb whose result is a list of
// rows or one object.
func (o *Output) WithColumns() *Output {
	o.columns = true
	return o
}

// AddFlags adds -o and the template flags to cmd, and checks -o with cmd's
// arguments, so that a format it does not know is a usage error found
// before any request (see Execute). Call it once cmd's Args is set.
func (o *Output) AddFlags(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&o.Format, "output", "o", "", "Output format: "+strings.Join(o.formats(), ", "))
	o.flags.OutputFormat = &o.Format
	o.flags.OutputFlagSpecified = func() bool { return o.Format != "" }
	o.flags.TemplatePrinterFlags.AddFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		formats := o.formats()
		values := make([]string, 0, len(formats))
		for _, f := range formats {
			values = append(values, strings.TrimSuffix(f, "..."))
		}
		return values, cobra.ShellCompDirectiveNoFileComp
	})
	args := cmd.Args
	cmd.Args = func(c *cobra.Command, a []string) error {
		if args != nil {
			if err := args(c, a); err != nil {
				return err
			}
		}
		return o.validate()
	}
}

// formats are the -o values, as help and errors list them.
func (o *Output) formats() []string {
	out := append([]string{}, o.own...)
	out = append(out, o.flags.JSONYamlPrintFlags.AllowedFormats()...)
	for _, f := range o.flags.TemplatePrinterFlags.AllowedFormats() {
		if f != "template" && f != "templatefile" { // go-template's older names
			out = append(out, f+"=...")
		}
	}
	if o.columns {
		out = append(out, "custom-columns=...", "custom-columns-file=...")
	}
	return out
}

// validate finds the printer of the format, reading and parsing the
// template it names, or refuses the format.
func (o *Output) validate() error {
	o.printer = nil
	template := *o.flags.TemplatePrinterFlags.TemplateArgument
	if o.Format == "" && template == "" || slices.Contains(o.own, o.Format) {
		return nil
	}
	if o.columns {
		if p, ok, err := newColumnsPrinter(o.Format); ok {
			o.printer = p
			return err
		}
	}
	p, err := o.flags.ToPrinter()
	if genericclioptions.IsNoCompatiblePrinterError(err) {
		return fmt.Errorf("unknown output format %q: want %s", o.Format, strings.Join(o.formats(), ", "))
	}
	o.printer = p
	return err
}

// Printed reports whether Print prints the format: false for the verb's own.
func (o *Output) Printed() bool { return o.printer != nil }

// Print prints obj in the format, which Printed says Print prints.
func (o *Output) Print(w io.Writer, obj runtime.Object) error {
	if o.printer == nil {
		return fmt.Errorf("output format %q is printed by the command itself", o.Format)
	}
	return o.printer.PrintObj(obj, w)
}

// PrintList prints items as a v1 List (see asList), in the format, which
// Printed says Print prints.
func (o *Output) PrintList(w io.Writer, items any) error {
	list, err := asList(items)
	if err != nil {
		return err
	}
	return o.Print(w, list)
}

// object is v as JSON encodes it, with apiVersion and kind, for the
// printers; its fields are named as v's JSON names them.
func object(apiVersion, kind string, v any) (*unstructured.Unstructured, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	content := map[string]any{}
	// As the API machinery decodes objects: whole numbers as int64, which
	// jsonpath filters compare.
	if err := utiljson.Unmarshal(data, &content); err != nil {
		return nil, err
	}
	content["apiVersion"], content["kind"] = apiVersion, kind
	return &unstructured.Unstructured{Object: content}, nil
}

// asList wraps items as kubectl wraps the objects of a list: a v1 List,
// its items empty rather than null when there are none.
func asList(items any) (*unstructured.Unstructured, error) {
	list, err := object("v1", "List", struct {
		Items any `json:"items"`
	}{items})
	if err == nil && list.Object["items"] == nil {
		list.Object["items"] = []any{}
	}
	return list, err
}

// Columns defines table columns; priority 1 shows only with -o wide.
func Columns(priority int32, names ...string) []metav1.TableColumnDefinition {
	out := make([]metav1.TableColumnDefinition, 0, len(names))
	for _, n := range names {
		out = append(out, metav1.TableColumnDefinition{Name: n, Type: "string", Priority: priority})
	}
	return out
}

// PrintTable prints t as kubectl get prints a table.
func PrintTable(w io.Writer, t *metav1.Table, wide, withNamespace bool) error {
	return printers.NewTablePrinter(printers.PrintOptions{Wide: wide, WithNamespace: withNamespace}).PrintObj(t, w)
}

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
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/printers"
	"sigs.k8s.io/yaml"
)

// Structured output formats.
const (
	OutputJSON = "json"
	OutputYAML = "yaml"
)

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

// PrintStructured prints v as JSON or, for OutputYAML, YAML.
func PrintStructured(w io.Writer, v any, output string) error {
	data, err := json.MarshalIndent(v, "", "    ")
	if err != nil {
		return err
	}
	if output == OutputYAML {
		if data, err = yaml.JSONToYAML(data); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintln(w, strings.TrimRight(string(data), "\n"))
	return err
}

// AsList wraps items as kubectl wraps the objects of a list in -o json and -o yaml.
func AsList(items any) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
}

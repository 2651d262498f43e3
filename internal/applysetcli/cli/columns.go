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
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/util/jsonpath"
)

// columnsPrinter prints -o custom-columns as kubectl get does: a row per
// item of a list, or one for an object; <none> where a path finds nothing,
// the values joined by commas where it finds several. kubectl's own
// printer lives in k8s.io/kubectl/pkg/cmd/get, which would bring most of
// kubectl into the plugin.
type columnsPrinter struct {
	headers []string
	paths   []*jsonpath.JSONPath
}

// relaxedPath accepts a column's path as kubectl does: metadata.name,
// .metadata.name, {metadata.name} or {.metadata.name}.
var relaxedPath = regexp.MustCompile(`^\{\.?([^{}]+)\}$|^\.?([^{}]+)$`)

// newColumnsPrinter is the printer of -o custom-columns=HEADER:PATH,... or
// -o custom-columns-file=FILE (a line of headers over a line of paths);
// ok is false for other formats.
func newColumnsPrinter(format string) (p printers.ResourcePrinter, ok bool, err error) {
	var headers, paths []string
	switch name, value, _ := strings.Cut(format, "="); name {
	case "custom-columns":
		if value == "" {
			return nil, true, errors.New("custom-columns format specified but no custom columns given")
		}
		for _, column := range strings.Split(value, ",") {
			header, path, found := strings.Cut(column, ":")
			if !found {
				return nil, true, fmt.Errorf("unexpected custom-columns spec: %s, expected <header>:<json-path-expr>", column)
			}
			headers, paths = append(headers, header), append(paths, path)
		}
	case "custom-columns-file":
		data, err := os.ReadFile(value)
		if err != nil {
			return nil, true, fmt.Errorf("reading the custom-columns file: %w", err)
		}
		lines := strings.SplitN(string(data), "\n", 3)
		if len(lines) < 2 {
			return nil, true, fmt.Errorf("%s: want a line of headers and a line of paths", value)
		}
		headers, paths = strings.Fields(lines[0]), strings.Fields(lines[1])
		if len(headers) != len(paths) {
			return nil, true, fmt.Errorf("%s: %d headers for %d paths", value, len(headers), len(paths))
		}
	default:
		return nil, false, nil
	}
	c := &columnsPrinter{headers: headers}
	for i, path := range paths {
		m := relaxedPath.FindStringSubmatch(path)
		if m == nil {
			return nil, true, fmt.Errorf("unexpected path %q, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'", path)
		}
		parser := jsonpath.New(fmt.Sprintf("column%d", i)).AllowMissingKeys(true)
		if err := parser.Parse("{." + m[1] + m[2] + "}"); err != nil {
			return nil, true, fmt.Errorf("column %s: %w", headers[i], err)
		}
		c.paths = append(c.paths, parser)
	}
	return c, true, nil
}

// PrintObj prints the rows of obj, which is unstructured, as Object and
// List make it.
func (c *columnsPrinter) PrintObj(obj runtime.Object, out io.Writer) error {
	u, ok := obj.(runtime.Unstructured)
	if !ok {
		return fmt.Errorf("custom-columns cannot print %T", obj)
	}
	rows := []any{u.UnstructuredContent()}
	if u.IsList() {
		rows = u.UnstructuredContent()["items"].([]any)
	}
	w := printers.GetNewTabWriter(out)
	fmt.Fprintln(w, strings.Join(c.headers, "\t"))
	for _, row := range rows {
		cells := make([]string, len(c.paths))
		for i, path := range c.paths {
			results, err := path.FindResults(row)
			if err != nil {
				return err
			}
			var values []string
			for _, result := range results {
				for _, v := range result {
					values = append(values, printers.EscapeTerminal(fmt.Sprint(v.Interface())))
				}
			}
			cells[i] = strings.Join(values, ",")
			if len(values) == 0 {
				cells[i] = "<none>"
			}
		}
		fmt.Fprintln(w, strings.Join(cells, "\t"))
	}
	return w.Flush()
}

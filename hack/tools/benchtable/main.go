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

// Command benchtable reads the output of `go test -bench` and prints one
// Markdown table: a row per benchmark, a column per unit, the median of its
// runs with their minimum and maximum where there are several (`-count`).
// `make bench` ends with it.
package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

func main() {
	if err := render(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

// row is one benchmark's values per unit, a value a run.
type row struct {
	name   string
	values map[string][]float64
}

func render(in io.Reader, out io.Writer) error {
	var (
		rows  []*row
		byKey = map[string]*row{}
		units []string
	)
	reader := benchfmt.NewReader(in, "bench output")
	for reader.Scan() {
		res, ok := reader.Result().(*benchfmt.Result)
		if !ok {
			continue // configuration lines, syntax errors of other output
		}
		name := withoutProcs(string(res.Name.Full()))
		key := res.GetConfig("pkg") + " " + name
		r := byKey[key]
		if r == nil {
			r = &row{name: name, values: map[string][]float64{}}
			byKey[key] = r
			rows = append(rows, r)
		}
		for _, v := range res.Values {
			if !slices.Contains(units, v.Unit) {
				units = append(units, v.Unit)
			}
			r.values[v.Unit] = append(r.values[v.Unit], v.Value)
		}
	}
	if err := reader.Err(); err != nil {
		return err
	}
	if len(rows) == 0 {
		return fmt.Errorf("no benchmark results in the input")
	}
	fmt.Fprintf(out, "| benchmark | %s |\n", strings.Join(units, " | "))
	fmt.Fprintf(out, "| --- |%s\n", strings.Repeat(" --- |", len(units)))
	for _, r := range rows {
		cells := make([]string, len(units))
		for i, u := range units {
			cells[i] = spread(r.values[u])
		}
		fmt.Fprintf(out, "| %s | %s |\n", r.name, strings.Join(cells, " | "))
	}
	return nil
}

// spread is the median of values, and their minimum and maximum when
// there are several: "5 (4.85–5.15)". The median of an even count is the
// mean of the middle two.
func spread(values []float64) string {
	switch len(values) {
	case 0:
		return ""
	case 1:
		return format(values[0])
	}
	v := slices.Sorted(slices.Values(values))
	median := v[len(v)/2]
	if len(v)%2 == 0 {
		median = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return fmt.Sprintf("%s (%s–%s)", format(median), format(v[0]), format(v[len(v)-1]))
}

// withoutProcs drops the -GOMAXPROCS suffix of a benchmark's name.
func withoutProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name
	}
	if _, err := strconv.Atoi(name[i+1:]); err != nil {
		return name
	}
	return name[:i]
}

// format writes a figure with three significant digits; large ones (bytes,
// allocations) whole.
func format(v float64) string {
	if math.Abs(v) >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

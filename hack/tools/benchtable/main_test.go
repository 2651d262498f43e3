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

package main

import (
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	in := `goos: linux
goarch: amd64
pkg: example.com/a
BenchmarkApply-2   	       1	4850000000 ns/op	         4.85 operator-s	         6.62 kubectl-s
BenchmarkApply-2   	       1	5150000000 ns/op	         5.15 operator-s	         6.38 kubectl-s
BenchmarkApply-2   	       1	4950000000 ns/op	         4.95 operator-s	         6.50 kubectl-s
BenchmarkApply-2   	       1	6050000000 ns/op	         6.05 operator-s	         6.70 kubectl-s
BenchmarkDecode/alias-bomb-2         	    1726	    651127 ns/op	  242264 B/op	    9371 allocs/op
BenchmarkDecode/utf8-2         	    300411	      4055 ns/op	    7768 B/op	      24 allocs/op
PASS
ok  	example.com/a	12.3s
`
	var out strings.Builder
	if err := render(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	// benchfmt reads ns/op as sec/op; runs of one benchmark give their
	// median (of an even count, the mean of the middle two), minimum and maximum.
	want := `| benchmark | sec/op | operator-s | kubectl-s | B/op | allocs/op |
| --- | --- | --- | --- | --- | --- |
| Apply | 5.05 (4.85–6.05) | 5.05 (4.85–6.05) | 6.56 (6.38–6.7) |  |  |
| Decode/alias-bomb | 0.000651 |  |  | 242264 | 9371 |
| Decode/utf8 | 4.06e-06 |  |  | 7768 | 24 |
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestRenderWithoutResults(t *testing.T) {
	if err := render(strings.NewReader("PASS\nok x 1s\n"), &strings.Builder{}); err == nil {
		t.Error("want an error for output without benchmark results")
	}
}

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

package apply

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// BenchmarkDecodeStream reads a stream of 2,000 ConfigMaps, as a set's
// source holds them, on one core and on all of them: the documents are
// parsed in parallel, so all cores should read it faster by about their
// number, less what cutting the stream into documents costs.
func BenchmarkDecodeStream(b *testing.B) {
	var sb strings.Builder
	const objects = 2000
	for i := range objects {
		fmt.Fprintf(&sb, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%d\n  namespace: shop\n  labels:\n    app: web\n"+
			"data:\n  key: value-%d\n  port: \"%d\"\n", i, i, 8000+i)
	}
	data := []byte(sb.String())
	for _, cores := range []int{1, runtime.NumCPU()} {
		b.Run(fmt.Sprintf("cores=%d", cores), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cores))
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				inputs, _, err := DecodeAtMost("src", data, DecodeLimits{Objects: objects, Nodes: objects * 64})
				if err != nil || len(inputs) != objects {
					b.Fatalf("%d objects, %v", len(inputs), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*objects), "µs/object")
		})
	}
}

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
	"context"
	"fmt"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/internal/buildgate"
	"github.com/applyset-operator/applyset-operator/internal/kbuild"
)

// BenchmarkBuildsOfTheSameFiles builds one small overlay for 50 sets at once,
// as 50 namespaces whose sets read one artifact do, through the operator's
// gate of 2 slots: "built" builds each, "shared" keeps builds by what they
// are a function of (--build-cache-size), so one of them builds.
func BenchmarkBuildsOfTheSameFiles(b *testing.B) {
	const sets = 50
	files, err := artifact.NewTree(map[string][]byte{
		"base/kustomization.yaml": []byte("resources: [app.yaml]\n"),
		"base/app.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\n---\n" +
			"apiVersion: v1\nkind: Service\nmetadata: {name: app}\nspec: {ports: [{port: 80}]}\n"),
		"prod/kustomization.yaml": []byte("resources: [../base]\nnamePrefix: prod-\nlabels: [{pairs: {env: prod}}]\n"),
	})
	if err != nil {
		b.Fatal(err)
	}
	var took [2]time.Duration
	for i, name := range []string{"built", "shared"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				a := &Artifacts{Builds: buildgate.New(2, time.Minute)}
				if name == "shared" {
					a.Cache = kbuild.NewCache(64 << 20)
				}
				start := time.Now()
				g, ctx := errgroup.WithContext(context.Background())
				for n := range sets {
					g.Go(func() error {
						_, err := a.build(ctx, files, "prod", share{bytes: 1 << 20, line: fmt.Sprint("ns", n)})
						return err
					})
				}
				if err := g.Wait(); err != nil {
					b.Fatal(err)
				}
				took[i] = time.Since(start)
			}
			b.ReportMetric(took[i].Seconds()/sets*1000, "ms/set")
		})
	}
	if took[0] > 0 && took[1] > 0 {
		b.Logf("%d sets reading the same overlay: built each %s, shared %s (%.2f of the time)",
			sets, took[0].Round(time.Millisecond), took[1].Round(time.Millisecond), took[1].Seconds()/took[0].Seconds())
	}
}

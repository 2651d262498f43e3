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
	"errors"
	"strings"
	"testing"
	"time"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/internal/buildgate"
	"github.com/applyset-operator/applyset-operator/internal/kbuild"
)

// TestGatherWaitsForABuildSlot: a set's build runs in one of the slots of
// the operator's gate; a wait longer than the gate lets one last leaves the
// artifact unavailable for now, to be tried again, not the set's input
// invalid.
func TestGatherWaitsForABuildSlot(t *testing.T) {
	srv, sum, _, _ := otherTeam(t)
	reader := fluxReader(nil, gitRepository(srv.URL+"/gitrepository/shop/app/a.tar.gz", sum.String()))
	set := fluxApplySet(applyv1alpha1.FluxSourceGitRepository)
	artifacts := loopbackArtifacts(t)
	artifacts.Builds = buildgate.New(1, 50*time.Millisecond)
	leave, err := artifacts.Builds.Enter(context.Background(), "other")
	if err != nil {
		t.Fatal(err)
	}
	_, err = GatherWith(context.Background(), reader, set, DefaultLimits, artifacts)
	var queued *buildgate.QueuedError
	if !errors.Is(err, ErrArtifactUnavailable) || !errors.As(err, &queued) ||
		!strings.Contains(err.Error(), "spec.sources[0]: GitRepository shop/app revision main@sha1:1: waited 50ms for a build slot") {
		t.Fatalf("got %v, want the artifact unavailable for now", err)
	}
	leave()
	if got, err := GatherWith(context.Background(), reader, set, DefaultLimits, artifacts); err != nil || len(got.Inputs) != 1 {
		t.Fatalf("with the slot free: %+v, %v", got.Inputs, err)
	}
}

// TestGatherSharesABuildOfTheSameFiles: a second set reading the same files
// of an artifact takes the first one's build, without waiting for a slot;
// other files build again, and a set with fewer bytes left than the build
// holds is refused as its own build would be.
func TestGatherSharesABuildOfTheSameFiles(t *testing.T) {
	kustomized := func(value string) (*artifact.Tree, error) {
		return artifact.NewTree(map[string][]byte{
			"deploy/kustomization.yaml": []byte("resources: [a.yaml]\nnamePrefix: x-\n"),
			"deploy/a.yaml":             []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: " + value + "}\n"),
		})
	}
	artifacts := &Artifacts{Cache: kbuild.NewCache(1 << 20), Builds: buildgate.New(1, 50*time.Millisecond)}
	var built, cached int
	artifacts.Observe = func(hit bool) {
		if hit {
			cached++
		} else {
			built++
		}
	}
	ctx := context.Background()
	roomy := share{bytes: 1 << 20, line: "shop"}
	first, _ := kustomized("one")
	docs, err := artifacts.build(ctx, first, "deploy", roomy)
	if err != nil || len(docs) != 1 || !strings.Contains(string(docs[0].Data), "name: x-a") {
		t.Fatalf("first build: %v, %v", docs, err)
	}
	leave, err := artifacts.Builds.Enter(ctx, "other") // every slot taken
	if err != nil {
		t.Fatal(err)
	}
	same, _ := kustomized("one")
	if again, err := artifacts.build(ctx, same, "deploy", share{bytes: 1 << 20, line: "web"}); err != nil || string(again[0].Data) != string(docs[0].Data) {
		t.Fatalf("the same files: %v, %v; want the first build, without a slot", again, err)
	}
	leave()
	var limit *kbuild.LimitError
	if _, err := artifacts.build(ctx, same, "deploy", share{bytes: 10, line: "web"}); !errors.As(err, &limit) {
		t.Errorf("a set with 10 bytes left: %v, want the build refused at its bound", err)
	}
	other, _ := kustomized("two")
	if got, err := artifacts.build(ctx, other, "deploy", roomy); err != nil || !strings.Contains(string(got[0].Data), "k: two") {
		t.Fatalf("other files: %v, %v", got, err)
	}
	if built != 2 || cached != 2 {
		t.Errorf("built %d and took %d from the cache, want 2 and 2", built, cached)
	}
}

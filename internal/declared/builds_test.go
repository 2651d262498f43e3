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
	"github.com/applyset-operator/applyset-operator/internal/buildgate"
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

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
	"path/filepath"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// The second-shard component, built into the default install as docs/guides/sharding.md
// shows, gives two Deployments whose flags cmd/manager accepts, that split
// the sets between them by label and run the one-per-cluster controllers
// once.
func TestSecondShardComponent(t *testing.T) {
	shards := map[string]*options{}
	images := map[string]string{}
	for _, res := range buildOverlay(t, "second-shard") {
		if res.GetKind() != "Deployment" {
			continue
		}
		var d appsv1.Deployment
		decodeResource(t, res, &d)
		container := d.Spec.Template.Spec.Containers[0]
		o, err := parseFlags(container.Args...)
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		if d.Namespace != "applyset-operator-system" || d.Spec.Template.Spec.ServiceAccountName != "applyset-operator-controller-manager" {
			t.Errorf("%s runs in %s as %s, not beside the first shard", d.Name, d.Namespace, d.Spec.Template.Spec.ServiceAccountName)
		}
		shards[d.Name] = &o
		images[d.Name] = container.Image
	}
	first, second := shards["applyset-operator-controller-manager"], shards["applyset-operator-controller-manager-shard1"]
	if len(shards) != 2 || first == nil || second == nil {
		t.Fatalf("want the first Deployment and the shard1 one, got %v", shards)
	}
	for name, image := range images {
		if image != "registry.example.com/applyset-operator:v0.1.0" {
			t.Errorf("%s runs %s, not the image the overlay sets", name, image)
		}
	}

	for _, set := range []labels.Set{{}, {shardKey: "shard1"}, {shardKey: "shard2"}, {"app": "web"}} {
		firstSees, secondSees := reconciles(first, set), reconciles(second, set)
		// A set labelled for a shard that does not run (shard2) is left alone.
		wantFirst, wantSecond := !set.Has(shardKey), set.Get(shardKey) == "shard1"
		if firstSees != wantFirst || secondSees != wantSecond {
			t.Errorf("a set labelled %v: first shard reconciles it %v, second %v; want %v and %v",
				set, firstSees, secondSees, wantFirst, wantSecond)
		}
	}
	if first.shard.leaderElectionID() == second.shard.leaderElectionID() {
		t.Errorf("both shards elect their leader on lease %s", first.shard.leaderElectionID())
	}
	if !first.shard.runs(controllerParents) || !first.shard.runs(controllerFeatureGates) || first.webhooks.disabled {
		t.Errorf("the first shard runs %v (webhooks disabled: %v), want every controller and the webhooks", first.shard.running, first.webhooks.disabled)
	}
	if second.shard.runs(controllerParents) || second.shard.runs(controllerFeatureGates) || !second.webhooks.disabled {
		t.Errorf("the second shard runs %v (webhooks disabled: %v), want the set reconcilers alone", second.shard.running, second.webhooks.disabled)
	}
}

// reconciles says whether a manager with o reconciles a set labelled set.
func reconciles(o *options, set labels.Set) bool {
	return o.shard.selector == nil || o.shard.selector.Matches(set)
}

// buildOverlay builds the install overlay test/install/testdata/<name> as
// kubectl apply -k would, and returns its objects.
func buildOverlay(t *testing.T, name string) []*resource.Resource {
	t.Helper()
	overlay, err := filepath.Abs(filepath.Join("..", "..", "test", "install", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), overlay)
	if err != nil {
		t.Fatalf("building %s: %v", overlay, err)
	}
	return resources.Resources()
}

// decodeResource decodes one object of an overlay into a typed object.
func decodeResource(t *testing.T, res *resource.Resource, into any) {
	t.Helper()
	m, err := res.Map()
	if err != nil {
		t.Fatal(err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, into); err != nil {
		t.Fatalf("decoding %s %s: %v", res.GetKind(), res.GetName(), err)
	}
}

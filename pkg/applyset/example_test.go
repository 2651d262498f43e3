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

package applyset_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// A tool that keeps its set in a Secret labels the Secret, and each member,
// with the ID kubectl would compute for it.
func ExampleParentKey_ID() {
	key := applyset.ParentKey{GroupKind: schema.GroupKind{Kind: "Secret"}, Namespace: "shop", Name: "web"}
	fmt.Println(applyset.IDLabel + "=" + key.ID())
	fmt.Println(applyset.PartOfLabel + "=" + key.ID())
	// Output:
	// applyset.kubernetes.io/id=applyset-ZhFTnyMOfABWycOd1915Uf0UKi6elg7a8lTmmXNRgSQ-v1
	// applyset.kubernetes.io/part-of=applyset-ZhFTnyMOfABWycOd1915Uf0UKi6elg7a8lTmmXNRgSQ-v1
}

// A parent's hints tell a pruning tool which kinds to list; kubectl wrote
// group-resources before it wrote group-kinds, and reads both.
func ExampleParseGroupKinds() {
	kinds, _ := applyset.ParseGroupKinds("Deployment.apps,ConfigMap")
	resources, _ := applyset.ParseGroupResources("deployments.apps,configmaps")
	fmt.Println(applyset.FormatGroupKinds(kinds))
	fmt.Println(resources.Has(schema.GroupResource{Group: "apps", Resource: "deployments"}))
	// Output:
	// ConfigMap,Deployment.apps
	// true
}

// Another tool's parent is verified, never changed: its tooling says whose it is.
func ExampleParseTooling() {
	tooling, _ := applyset.ParseTooling("kubectl/v1.37.1")
	fmt.Println(tooling.Name, tooling.Version)
	_, err := applyset.ParseTooling("kubectl/")
	fmt.Println(err)
	// Output:
	// kubectl v1.37.1
	// the tooling value "kubectl/" ends in a slash: the version is missing
}

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

package apply_test

import (
	"fmt"

	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// An object waits for those its depends-on annotation names, written as kpt
// and cli-utils write it.
func ExampleParseDependsOn() {
	refs, err := apply.ParseDependsOn("apps/namespaces/shop/Deployment/db, /namespaces/shop/Secret/creds, apiextensions.k8s.io/CustomResourceDefinition/widgets.example.com")
	for _, ref := range refs {
		fmt.Println(ref)
	}
	fmt.Println(err)
	// Output:
	// Deployment.apps shop/db
	// Secret shop/creds
	// CustomResourceDefinition.apiextensions.k8s.io widgets.example.com
	// <nil>
}

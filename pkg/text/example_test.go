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

package text_test

import (
	"fmt"

	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// A condition message names a limit, and stays within the API's bound on
// its length however many objects it would name.
func Example() {
	fmt.Println("the build would produce more than " + text.Bytes(16<<20))
	fmt.Println(text.Summarize([]string{"ConfigMap a", "ConfigMap b", "ConfigMap c", "ConfigMap d"}, 2))
	fmt.Println(text.Truncate("a message longer than its bound", 16))
	// Output:
	// the build would produce more than 16 MiB
	// ConfigMap a, ConfigMap b and 2 more
	// a message lon...
}

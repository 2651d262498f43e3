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

// Package setrun runs one of the operator's sets: it reads what the set
// declares as the identity given, checks it, plans the apply and the prune,
// and applies, previews or releases, in the one order every caller follows.
// The reconciler and the plugin's diff -f, delete, approve, view and list
// call it; a preview is the same run with the engine in dry-run, so it
// cannot disagree with what the operator does.
//
// A run returns one Result: what was declared, what the apply and the prune
// did (or would do), what waits for approval, and the inventory after a
// real run. What a caller writes about it (status, Events, metrics, a
// preview's diff) is the caller's.
package setrun

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

// Package applyset implements the KEP-3659 ApplySet contract as kubectl reads
// and writes it: the label and annotation keys, the parent ID, the
// contains-group-kinds and additional-namespaces hints, tooling values, the
// scope rule, and the server-side apply patch that writes them on a parent.
//
// The package is pure: it works on names, labels and annotations and makes no
// API requests, so any tool can use it: a tool that keeps its own ApplySets
// (a deployer, a GitOps controller), or one that checks other tools' sets,
// byte for byte as kubectl does.
package applyset

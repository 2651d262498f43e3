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

// Package apply is the operator's apply engine: it reads a declared set of
// objects, checks it against the cluster's types and the set's scope, applies
// it with server-side apply under one field manager, prunes what left the set,
// and reports every action as a typed change set, for real or as a server-side
// dry-run preview.
//
// It takes a client and plain data; it knows nothing of the ApplySet custom
// resource or of controller managers. It is for tools that apply sets of
// objects the way kubectl's ApplySet does (a controller, a CLI, a test),
// as the operator and its kubectl plugin both do.
package apply

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

// Package crd embeds the CustomResourceDefinitions of the operator's API, so
// that the operator's tools can validate manifests offline against the very
// schemas and rules the API server enforces.
package crd

import "embed"

// Bases holds bases/*.yaml, the generated CRDs.
//
//go:embed bases/*.yaml
var Bases embed.FS

//go:build !linux

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

package kbuild

// addressSpaceBounded: a build child's address space is not bounded here.
const addressSpaceBounded = false

// limitAddressSpace bounds nothing: macOS does not enforce RLIMIT_AS and
// Windows has none, so a build there (a preview's) is bounded by its heap
// sampler only.
func limitAddressSpace(int64) error { return nil }

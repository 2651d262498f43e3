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

package buildgate

import (
	"os"
	"strconv"
	"strings"
)

// Bounds of the slots a gate is given by default.
const (
	// mostDefaultSlots keeps the builds' share of CPU small: each build is
	// a process of up to two threads busy for as long as it runs.
	mostDefaultSlots = 4
	// memoryMaxFile is the container's memory limit under cgroup v2.
	memoryMaxFile = "/sys/fs/cgroup/memory.max"
)

// DefaultSlots is how many builds, each holding up to footprint bytes, fit
// in half the memory of the operator's container, the other half left to
// the operator: at least one, at most four. Without a limit to read (no
// cgroup v2, or "max"), one, as though the limit were small.
func DefaultSlots(footprint int64) int {
	return slotsFor(containerMemory(memoryMaxFile), footprint)
}

func slotsFor(memory, footprint int64) int {
	if memory <= 0 || footprint <= 0 {
		return 1
	}
	return int(min(max(memory/2/footprint, 1), mostDefaultSlots))
}

// containerMemory is the memory limit the file holds, or 0 for none or
// none known.
func containerMemory(file string) int64 {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil { // "max", no limit
		return 0
	}
	return n
}

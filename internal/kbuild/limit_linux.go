//go:build linux && !race

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

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// addressSpaceBounded: a build child's address space is bounded here.
const addressSpaceBounded = true

// limitAddressSpace lets this process map at most allowance bytes beyond
// what it has mapped. Most of that is address space the Go runtime
// reserved at start (about 1.3 GiB on linux/amd64, little of it resident),
// so that a bound on the whole would bound the runtime, not the build. An
// allocation past it fails, and the runtime ends the process with "fatal
// error: out of memory" (exit code 2) instead of growing into the memory
// the operator shares with its builds.
func limitAddressSpace(allowance int64) error {
	mapped, err := mappedBytes()
	if err != nil {
		return err
	}
	var limit syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &limit); err != nil {
		return fmt.Errorf("reading RLIMIT_AS: %w", err)
	}
	// Both soft and hard, so that nothing in the child raises it again; an
	// admin's lower hard limit stays.
	bound := min(uint64(mapped+allowance), limit.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: bound, Max: bound}); err != nil {
		return fmt.Errorf("setting RLIMIT_AS to %d: %w", bound, err)
	}
	// Should the container run out of memory all the same, the kernel ends
	// the build rather than the operator. Raising one's own score needs no
	// privilege; where it fails, the address-space bound still holds.
	_ = os.WriteFile("/proc/self/oom_score_adj", []byte("1000"), 0)
	return nil
}

// mappedBytes is the address space this process has mapped (VmSize).
func mappedBytes() (int64, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range bytes.Lines(status) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmSize:")); ok {
			kib, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte("kB")))), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("reading VmSize of /proc/self/status: %w", err)
			}
			return kib << 10, nil
		}
	}
	return 0, fmt.Errorf("/proc/self/status has no VmSize")
}

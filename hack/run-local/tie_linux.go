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

package main

import "syscall"

const canTieToParent = true

// tieToParent has the kernel send SIGKILL to this process when its parent
// goes (PR_SET_PDEATHSIG), however the parent ends. The setting belongs to
// the calling thread, which exec keeps only when it is the one that calls it
// (launch locks the two together).
func tieToParent() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0); errno != 0 {
		return errno
	}
	return nil
}

// childAttr is how run-local starts the manager: a process group of its own,
// so that a Ctrl-C reaches it once, through run-local, and killed by the
// kernel when run-local goes.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

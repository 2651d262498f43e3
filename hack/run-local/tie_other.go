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

package main

import (
	"errors"
	"syscall"
)

// Only Linux has a parent-death signal: elsewhere the control plane is
// stopped in order on Ctrl-C, and not when run-local is killed.
const canTieToParent = false

func tieToParent() error { return errors.New("no parent-death signal on this system") }

func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

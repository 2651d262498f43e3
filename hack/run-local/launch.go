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
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/applyset-operator/applyset-operator/internal/controlplane"
)

// The control plane's processes are started by envtest and internal/controlplane,
// each in a process group of its own, so a Ctrl-C reaches only run-local, which
// stops them in order. Were run-local killed instead (a second terminal's kill,
// SIGKILL, a closed terminal while a busy manager took its time to stop), they
// would be left running. So run-local starts each through itself: a launcher
// named after the binary asks the kernel to kill it when run-local goes
// (tieToParent), then replaces itself with the real binary. The manager, which
// run-local starts itself, gets the same through SysProcAttr.
var launched = []string{"etcd", "kube-apiserver", "kube-controller-manager"}

// parentEnv names run-local's pid in the environment of what it launches: a
// launcher whose parent is already gone exits rather than run orphaned.
const parentEnv = "RUN_LOCAL_PARENT_PID"

// realSuffix marks, beside each launcher, the link to the binary it runs.
const realSuffix = ".real"

// launching reports whether this process was started as a launcher.
func launching() (string, bool) {
	name := filepath.Base(os.Args[0])
	return name, os.Getenv(parentEnv) != "" && slices.Contains(launched, name)
}

// launch ties this process to run-local's life and becomes the binary it was
// started as; it returns only when that fails.
func launch(name string) error {
	// The kernel keeps the parent-death signal on the thread that asked for
	// it, and exec keeps only the thread that calls it: both must be one
	// thread, or the binary would outlive run-local.
	runtime.LockOSThread()
	if err := tieToParent(); err != nil {
		return fmt.Errorf("launching %s: %w", name, err)
	}
	// Run-local may have gone between starting this process and the line
	// above; the kernel would then never send the signal.
	if strconv.Itoa(os.Getppid()) != os.Getenv(parentEnv) {
		return fmt.Errorf("launching %s: run-local (pid %s) is gone", name, os.Getenv(parentEnv))
	}
	real := os.Args[0] + realSuffix
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, parentEnv+"=") })
	return syscall.Exec(real, os.Args, env)
}

// prepareLaunchers writes into dir, for each control-plane binary, a link to
// this program named after it and a link to the real binary beside it, and
// sets what the launchers read from the environment. It returns false where
// the system cannot tie a process to its parent's life.
func prepareLaunchers(ctx context.Context, dir string) (bool, error) {
	if !canTieToParent {
		return false, nil
	}
	self, err := os.Executable()
	if err != nil {
		return false, err
	}
	bin, err := controlplane.BinaryDir(ctx)
	if err != nil {
		return false, err
	}
	cm, err := controlplane.ControllerManagerPath(ctx, bin)
	if err != nil {
		return false, err
	}
	real := map[string]string{"etcd": filepath.Join(bin, "etcd"), "kube-apiserver": filepath.Join(bin, "kube-apiserver"), "kube-controller-manager": cm}
	if err := os.RemoveAll(dir); err != nil {
		return false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	for _, name := range launched {
		if err := errors.Join(os.Symlink(self, filepath.Join(dir, name)),
			os.Symlink(real[name], filepath.Join(dir, name+realSuffix))); err != nil {
			return false, err
		}
	}
	return true, os.Setenv(parentEnv, strconv.Itoa(os.Getpid()))
}

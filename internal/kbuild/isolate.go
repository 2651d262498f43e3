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
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/pkg/text"
)

// maxChildMessage bounds what is kept of a child's standard error.
const maxChildMessage = 4 << 10

// buildTime bounds one build: it holds one of the operator's few build
// slots (buildgate), and kustomize builds 16 MiB of objects within seconds.
const buildTime = time.Minute

// LimitError is a build refused, or stopped, because what it would
// produce or use is more than one of its limits.
type LimitError struct {
	// Message names the limit and its value, e.g. "the build would produce
	// more than 16 MiB".
	Message string
}

func (e *LimitError) Error() string { return e.Message }

// isolate builds the kustomization file of dir in a child process of this
// binary. However its generators, patches and replacements multiply what
// it reads, the build holds at most limits.MaxMemory of heap (and maps
// little more: boundsFor), its output is read up to limits.MaxBytes, and it
// ends with outer or after buildTime: the child is killed at whichever
// comes first.
func isolate(outer context.Context, files *artifact.Tree, dir, file string, limits Limits) ([]byte, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("building %s: finding this program to run the build in: %w", file, err)
	}
	req := request{Dir: dir, Files: map[string][]byte{}, MaxObjects: limits.MaxObjects, MaxBytes: limits.MaxBytes}
	for _, p := range files.Paths() {
		req.Files[p], _ = files.File(p)
	}
	var in bytes.Buffer
	if err := gob.NewEncoder(&in).Encode(req); err != nil {
		return nil, fmt.Errorf("building %s: %w", file, err)
	}
	ctx, cancel := context.WithTimeout(outer, buildTime)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	// The walk refuses every remote reference it knows of; should kustomize
	// know one more, the child finds no git to run (and its HTTP client no
	// network: serveChild).
	cmd.Env = childEnviron(boundsFor(limits.memory()), runtime.GOMAXPROCS(0))
	cmd.Stdin = &in
	stderr := &boundedBuffer{most: maxChildMessage}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("building %s: %w", file, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("building %s: starting the build: %w", file, err)
	}
	out, readErr := io.ReadAll(io.LimitReader(stdout, limits.MaxBytes+1))
	tooMuch := int64(len(out)) > limits.MaxBytes
	if tooMuch {
		_ = cmd.Process.Kill()
	}
	waitErr := cmd.Wait()
	switch {
	case tooMuch:
		return nil, tooManyBytes(file, limits)
	case outer.Err() != nil:
		return nil, fmt.Errorf("building %s: %w", file, outer.Err())
	case ctx.Err() != nil:
		return nil, &LimitError{fmt.Sprintf("building %s: the build took longer than %s", file, buildTime)}
	case waitErr != nil:
		return nil, childError(file, waitErr, string(out), stderr.String(), limits)
	case readErr != nil:
		return nil, fmt.Errorf("building %s: reading the build: %w", file, readErr)
	}
	return out, nil
}

// childError says why a child ended without a build: the message it wrote
// for a build that failed, what it wrote to standard error for a crash.
func childError(file string, err error, message, crash string, limits Limits) error {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return fmt.Errorf("building %s: %w", file, err)
	}
	if err := exitError(file, exit.ExitCode(), message, crash, limits); err != nil {
		return err
	}
	// Killed by a signal (the kernel's OOM killer among others) or crashed.
	return fmt.Errorf("building %s: the build ended with %w: %s", file, exit, text.Truncate(strings.TrimSpace(crash), 512))
}

// exitError is what a child's exit code, and the message or crash it
// wrote, say of its build; nil for a crash of its own.
func exitError(file string, code int, message, crash string, limits Limits) error {
	switch {
	case code == exitMemory, code == exitRuntime && outOfMemory(crash):
		return &LimitError{fmt.Sprintf("building %s: the build needs more than %s of memory", file, text.Bytes(limits.memory()))}
	case code == exitBytes:
		return tooManyBytes(file, limits)
	case code == exitObjects:
		return &LimitError{fmt.Sprintf("building %s: the build would produce more than %d objects", file, limits.MaxObjects)}
	case code == 1:
		return fmt.Errorf("building %s: %s", file, text.Truncate(strings.TrimSpace(message), maxChildMessage))
	}
	return nil
}

// exitRuntime is the exit code of a Go program the runtime ends: a
// panic, or a fatal error such as an allocation past its address space.
const exitRuntime = 2

// outOfMemory tells whether a crash is the runtime failing to map memory,
// which in a child is its address-space bound (limitAddressSpace): a line
// of the runtime's own, not a panic's message.
func outOfMemory(crash string) bool {
	for line := range strings.Lines(crash) {
		if strings.HasPrefix(line, "fatal error: out of memory") || strings.HasPrefix(line, "fatal error: runtime: out of memory") ||
			strings.HasPrefix(line, "runtime: out of memory") || strings.HasPrefix(line, "fatal error: runtime: cannot allocate memory") {
			return true
		}
	}
	return false
}

func tooManyBytes(file string, limits Limits) error {
	return &LimitError{fmt.Sprintf("building %s: the build would produce more than %s", file, text.Bytes(limits.MaxBytes))}
}

// boundedBuffer keeps the first most bytes written to it.
type boundedBuffer struct {
	bytes.Buffer
	most int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := b.most - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

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
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// childRun is how a child given a request ended.
type childRun struct {
	code   int
	stdout string
	stderr string
	// peak is the most the child held resident, in bytes.
	peak int64
}

// runChild runs the build of files in a child bounded by b, as isolate
// does but with its bounds chosen apart.
func runChild(t testing.TB, files map[string]string, b childBounds) childRun {
	t.Helper()
	tr := tree(t, files)
	req := request{Files: map[string][]byte{}, MaxObjects: 1 << 40, MaxBytes: 1 << 40}
	for _, p := range tr.Paths() {
		req.Files[p], _ = tr.File(p)
	}
	var in bytes.Buffer
	if err := gob.NewEncoder(&in).Encode(req); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = childEnviron(b, childProcs)
	// Only the first bytes of the output: this process stands for the
	// operator, whose memory a benchmark reports.
	stdout, stderr := &boundedBuffer{most: maxChildMessage}, &boundedBuffer{most: maxChildMessage}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = &in, stdout, stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return childRun{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String(),
		peak: cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10}
}

// TestChildStopsAtItsAddressSpace gives a child a heap bound it never
// reaches and a small address space: the build that needs more dies at the
// second, whatever its heap sampler saw, having held little more than it
// (what it held at start, and the heap arenas it had reserved by then).
func TestChildStopsAtItsAddressSpace(t *testing.T) {
	if !addressSpaceBounded {
		t.Skip("the race detector's shadow memory needs an unbounded address space; the child is bounded by its heap sampler only")
	}
	bounds := childBounds{memory: 1 << 30, addressSpace: 2 * arenaBytes}
	run := runChild(t, doubling(10), bounds)
	if run.code != exitRuntime || !outOfMemory(run.stderr) {
		t.Fatalf("exit code %d, standard error %q: want the runtime out of memory", run.code, firstLine(run.stderr))
	}
	if most := bounds.addressSpace + 2*arenaBytes; run.peak > most {
		t.Errorf("the child held %d MiB, more than %d MiB", run.peak>>20, most>>20)
	}
	var limit *LimitError
	if err := exitError("kustomization.yaml", run.code, run.stdout, run.stderr, Limits{MaxMemory: 64 << 20}); !errors.As(err, &limit) {
		t.Fatalf("got %v, want a *LimitError", err)
	}

	small := map[string]string{"kustomization.yaml": "resources: [cm.yaml]\n", "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"}
	if run := runChild(t, small, bounds); run.code != 0 {
		t.Fatalf("a small build within the same bound: exit code %d, %q %q", run.code, run.stdout, firstLine(run.stderr))
	}
}

// BenchmarkChildFootprint builds, each in a child bounded as isolate
// bounds it at the default 256 MiB, a typical kustomization, one its heap
// bound lets finish and hostile ones. It reports the child's exit code, the
// most it held resident (peak-MiB), the most this process, standing for the
// operator, held (operator-MiB), and for the builds that finish the least
// address space beyond its start the child finishes within (least-MiB).
// Run it with CGO_ENABLED=0, as the operator is built.
func BenchmarkChildFootprint(b *testing.B) {
	const memory = DefaultMaxMemory
	for _, c := range []struct {
		name   string
		files  map[string]string
		bounds childBounds
		least  bool
	}{
		{"one-ConfigMap", map[string]string{"kustomization.yaml": "resources: [cm.yaml]\n",
			"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"}, boundsFor(memory), true},
		{"300-Deployments-labelled-and-prefixed", deployments(300), boundsFor(memory), true},
		{"copy-doubling-8-times", doubling(8), boundsFor(memory), true},
		{"copy-doubling-16-times", doubling(16), boundsFor(memory), false},
		// A build past its sampler, whose heap bound it never reaches.
		{"copy-doubling-16-times-past-the-heap-sampler", doubling(16), childBounds{memory: 1 << 40, addressSpace: boundsFor(memory).addressSpace}, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			var run childRun
			for b.Loop() {
				run = runChild(b, c.files, c.bounds)
			}
			b.ReportMetric(float64(run.code), "exit-code")
			b.ReportMetric(float64(run.peak>>20), "peak-MiB")
			var self syscall.Rusage
			if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err == nil {
				b.ReportMetric(float64(self.Maxrss>>10), "operator-MiB")
			}
			if c.least && run.code == 0 {
				b.ReportMetric(float64(leastAddressSpace(b, c.files, c.bounds.memory)>>20), "least-MiB")
			}
		})
	}
}

// leastAddressSpace is, within a MiB, the least address space beyond its
// start a child finishes a build within.
func leastAddressSpace(b *testing.B, files map[string]string, memory int64) int64 {
	lo, hi := int64(0), boundsFor(memory).addressSpace
	for hi-lo > 1<<20 {
		mid := (lo + hi) / 2
		if runChild(b, files, childBounds{memory: memory, addressSpace: mid}).code == 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// deployments is a kustomization of n Deployments, labelled and prefixed.
func deployments(n int) map[string]string {
	files := map[string]string{}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("d%d.yaml", i)
		files[names[i]] = strings.ReplaceAll(deployment, "name: app", fmt.Sprintf("name: app%d", i))
	}
	files["kustomization.yaml"] = "resources: [" + strings.Join(names, ", ") + "]\nlabels: [{pairs: {team: a}}]\nnamePrefix: x-\n"
	return files
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

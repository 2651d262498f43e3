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
	"encoding/gob"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// childEnv marks a process started by isolate to run one build: this
// binary, run again with it set, builds what its standard input asks and
// exits before any other package of the binary is initialised. Its value
// is the child's bounds, read before its input (childBounds).
const childEnv = "APPLYSET_KBUILD_CHILD"

// The exit codes of a child, besides 0 (its standard output is the build)
// and 1 (its standard output says why the build failed). Standard error
// holds only what the Go runtime writes there when the child crashes
// (quietStderr), such as running out of its address space.
const (
	exitMemory  = 3
	exitBytes   = 4
	exitObjects = 5
)

// heapSampling is how often a child compares its heap with its bound: a
// build allocates at most a few MiB in that time.
const heapSampling = time.Millisecond

func init() {
	bounds := os.Getenv(childEnv)
	if bounds == "" {
		return
	}
	os.Exit(serveChild(bounds, os.Stdin, os.Stdout))
}

// request is what isolate sends a child.
type request struct {
	Dir        string
	Files      map[string][]byte
	MaxObjects int64
	MaxBytes   int64
}

// serveChild builds the kustomization a request names and writes its YAML
// to out, giving an exit code. The child bounds its address space before
// it reads a byte of the request.
func serveChild(bounds string, in io.Reader, out io.Writer) int {
	b, err := parseChildBounds(bounds)
	if err == nil {
		err = limitAddressSpace(b.addressSpace)
	}
	if err != nil {
		fmt.Fprintf(out, "bounding the build's memory: %v", err)
		return 1
	}
	quietStderr()
	http.DefaultTransport = offline{}
	var req request
	if err := gob.NewDecoder(in).Decode(&req); err != nil {
		fmt.Fprintf(out, "reading the build request: %v", err)
		return 1
	}
	watchHeap(b.memory)
	resources, err := buildInMemory(req.Files, req.Dir)
	if err != nil {
		fmt.Fprint(out, err)
		return 1
	}
	if int64(resources.Size()) > req.MaxObjects {
		return exitObjects
	}
	data, err := resources.AsYaml()
	if err != nil {
		fmt.Fprint(out, err)
		return 1
	}
	if int64(len(data)) > req.MaxBytes {
		return exitBytes
	}
	if _, err := out.Write(data); err != nil {
		return 1 // the parent went away
	}
	return 0
}

// quietStderr drops what kustomize writes to standard error (warnings of
// deprecated fields, one per kustomization): however many a build has, the
// parent reads why a child crashed from the first bytes of it. The Go
// runtime writes its own messages to the file descriptor, not os.Stderr.
func quietStderr() {
	if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
		os.Stderr = null
	}
	log.SetOutput(io.Discard)
}

// offline is a child's only way to the network: kustomize reads remote
// files through a client of http.DefaultTransport, and no build may.
type offline struct{}

func (offline) RoundTrip(req *http.Request) (*http.Response, error) {
	return nil, fmt.Errorf("%s: a build reads nothing from the network", req.URL.Redacted())
}

// watchHeap ends the process as soon as its heap holds more than limit
// bytes, and asks the collector to keep it below that meanwhile.
func watchHeap(limit int64) {
	debug.SetMemoryLimit(limit)
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		for range time.Tick(heapSampling) {
			metrics.Read(sample)
			if sample[0].Value.Uint64() > uint64(limit) {
				os.Exit(exitMemory)
			}
		}
	}()
}

// buildInMemory runs kustomize over files, held in memory, on the
// kustomization of dir, with builtin plugins only.
func buildInMemory(files map[string][]byte, dir string) (resmap.ResMap, error) {
	fSys := filesys.MakeFsInMemory()
	for p, data := range files {
		if err := fSys.WriteFile("/"+p, data); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsRootOnly
	opts.PluginConfig = types.DisabledPluginConfig()
	return krusty.MakeKustomizer(opts).Run(fSys, "/"+dir)
}

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

package e2e

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// kubectl runs kubectl as the cluster admin, from the repository, and returns
// its stdout, its stderr (warnings) and whether it failed.
func kubectl(args ...string) (string, string, error) {
	return command("kubectl", "", args...)
}

// kubectlIn is kubectl with stdin.
func kubectlIn(stdin string, args ...string) (string, string, error) {
	return command("kubectl", stdin, args...)
}

func command(name, stdin string, args ...string) (string, string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), stderr.String(), err
}

// run runs a command that must succeed and returns its stdout.
func run(name string, args ...string) string {
	GinkgoHelper()
	out, _, err := command(name, "", args...)
	Expect(err).NotTo(HaveOccurred())
	return out
}

// get reads one field of an object with a JSONPath template.
func get(jsonpath string, args ...string) (string, error) {
	out, _, err := kubectl(append(args, "-o", "jsonpath="+jsonpath)...)
	return out, err
}

// managerPods lists the manager's Pods that are not being deleted.
func managerPods() []string {
	GinkgoHelper()
	out, err := get(`{range .items[*]}{.metadata.name}{" "}{.metadata.deletionTimestamp}{"\n"}{end}`,
		"get", "pods", "-n", namespace, "-l", managerSel)
	Expect(err).NotTo(HaveOccurred())
	var pods []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if fields := strings.Fields(line); len(fields) == 1 {
			pods = append(pods, fields[0])
		}
	}
	return pods
}

// leader is the Pod that holds the manager's lease.
func leader() (string, error) {
	holder, err := get("{.spec.holderIdentity}", "get", "lease", "-n", namespace, "applyset-operator.applyset.dev")
	name, _, _ := strings.Cut(holder, "_")
	return name, err
}

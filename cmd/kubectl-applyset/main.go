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

// Command kubectl-applyset is a kubectl plugin that works on every ApplySet
// of a cluster, whatever tool wrote it, with the verbs adopt, approve,
// delete, diff, disband, list, push, release-finalizers, ui, validate,
// verify, version and view (docs/reference/plugin.md).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"time"
	_ "time/tzdata" // A held set's next window is shown in its time zone, on any machine.

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/tracing"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	cmd := applysetcli.NewCommand(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	args := argsOf(os.Args)
	cmd.SetArgs(args)
	shutdown, err := tracing.Setup(ctx, "kubectl-applyset")
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(cli.ExitCode(err))
	}
	// One trace a command: its requests to the API server are its spans,
	// so a preview and the apply it approved compare span by span.
	verb, _, err := cmd.Find(args)
	if err != nil || verb == nil {
		verb = cmd // a usage error, which Execute reports
	}
	traced, span := tracing.Tracer().Start(ctx, verb.CommandPath())
	code := cli.Execute(traced, cmd)
	span.End()
	flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	if err := shutdown(flush); err != nil {
		fmt.Fprintf(os.Stderr, "Warning: the traces were not all exported: %v\n", err)
	}
	cancel()
	stop()
	os.Exit(code)
}

// completer is the name kubectl runs a plugin's completion by: kubectl
// applyset <Tab> runs kubectl_complete-applyset with the words typed after
// applyset, the one being completed last. make plugins links it to this
// binary.
const completer = "kubectl_complete-applyset"

// argsOf are the plugin's arguments: those of the command line, or, run as
// the completer, cobra's request for the completions of them.
func argsOf(argv []string) []string {
	if filepath.Base(argv[0]) == completer {
		return append([]string{cobra.ShellCompRequestCmd}, argv[1:]...)
	}
	return argv[1:]
}

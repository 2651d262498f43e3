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

// Command kubectl-applyset is a kubectl plugin: `kubectl applyset list|view|
// verify|disband` works on every ApplySet of a cluster, whatever tool wrote it.
package main

import (
	"context"
	"os"
	"os/signal"
	_ "time/tzdata" // A held set's next window is shown in its time zone, on any machine.

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli"
	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	cmd := applysetcli.NewCommand(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	code := cli.Execute(ctx, cmd)
	stop()
	os.Exit(code)
}

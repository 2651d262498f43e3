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

// Command kubectl-feature_gates is a kubectl plugin: `kubectl feature-gates
// [CRD]` lists the feature gates declared over CRD fields, like `kubectl
// api-resources` lists resources; `kubectl feature-gates render -f` prints the
// admission policies that enforce them, for clusters without the operator.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/gatelist"
)

func main() {
	flags := flag.NewFlagSet("kubectl feature-gates", flag.ExitOnError)
	kubeconfig := flags.String("kubeconfig", "", "Path to the kubeconfig file to use.")
	kubeContext := flags.String("context", "", "The kubeconfig context to use.")
	output := flags.String("o", "", "Output format: wide, name, json or yaml.")
	flags.StringVar(output, "output", "", "Output format: wide, name, json or yaml.")
	var files fileList
	flags.Var(&files, "f", "render: a manifest file (- for stdin) with CustomFeatureGates and their CRDs; repeatable.")
	flags.Var(&files, "filename", "render: as -f.")
	flags.Usage = func() {
		fmt.Fprintln(flags.Output(), "Usage: kubectl feature-gates [CRD] [-o wide|name|json|yaml]\n"+
			"       kubectl feature-gates render -f gates.yaml [-f crd.yaml]   # the admission policies, as YAML")
		flags.PrintDefaults()
	}
	_ = flags.Parse(flagsFirst(os.Args[1:]))
	var err error
	if args := flags.Args(); len(args) > 0 && args[0] == "render" {
		err = renderFiles(os.Stdout, files, args[1:])
	} else {
		err = run(*kubeconfig, *kubeContext, *output, args)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}

// flagsFirst moves positional arguments after the flags, since kubectl users
// write flags anywhere (kubectl feature-gates CRD -o wide) and the flag package
// stops at the first positional argument.
func flagsFirst(args []string) []string {
	takesValue := map[string]bool{"-o": true, "--o": true, "-output": true, "--output": true,
		"-f": true, "--f": true, "-filename": true, "--filename": true,
		"-kubeconfig": true, "--kubeconfig": true, "-context": true, "--context": true}
	var flagArgs, positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			positional = append(positional, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "-"):
			flagArgs = append(flagArgs, a)
			if takesValue[a] && i+1 < len(args) {
				flagArgs = append(flagArgs, args[i+1])
				i++
			}
		default:
			positional = append(positional, a)
		}
	}
	return append(append(flagArgs, "--"), positional...)
}

// fileList is a repeatable -f.
type fileList []string

func (f *fileList) String() string     { return strings.Join(*f, ",") }
func (f *fileList) Set(v string) error { *f = append(*f, v); return nil }

// renderFiles renders the policies of the manifests in files.
func renderFiles(w io.Writer, files, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("render takes no arguments but -f, got %v", args)
	}
	if len(files) == 0 {
		return errors.New("render needs -f with the CustomFeatureGates and their CRDs")
	}
	var readers []io.Reader
	for _, name := range files {
		if name == "-" {
			readers = append(readers, os.Stdin)
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		readers = append(readers, f)
	}
	return render(w, readers...)
}

func run(kubeconfig, kubeContext, output string, args []string) error {
	if len(args) > 1 {
		return fmt.Errorf("at most one CRD name, got %v", args)
	}
	crd := ""
	if len(args) == 1 {
		crd = args[0]
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules,
		&clientcmd.ConfigOverrides{CurrentContext: kubeContext}).ClientConfig()
	if err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	if err := featuresv1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	rows, err := gatelist.Rows(context.Background(), c, crd)
	if err != nil {
		return err
	}
	return gatelist.Print(os.Stdout, rows, output)
}

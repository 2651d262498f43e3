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
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/gatelist"
	"github.com/applyset-operator/applyset-operator/internal/version"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := newCommand(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}).ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}

// newCommand is kubectl feature-gates, with kubectl's connection flags
// (--kubeconfig, --context, --as, --server, --token...).
func newCommand(streams genericiooptions.IOStreams) *cobra.Command {
	connection := genericclioptions.NewConfigFlags(true)
	var output string
	cmd := &cobra.Command{
		Use:   "kubectl feature-gates [CRD]",
		Short: "List the feature gates declared over CRD fields",
		Long: "List the feature gates that CustomFeatureGates declare over the fields of CRDs, and whether each is " +
			"enabled, as kubectl api-resources lists resources. Name a CRD to list its gates only.",
		Example: "  kubectl feature-gates\n  kubectl feature-gates widgets.example.com -o wide\n" +
			"  kubectl feature-gates render -f gates.yaml -f crd.yaml",
		Args:          cobra.MaximumNArgs(1),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			// The format is checked before any request.
			if err := gatelist.Print(io.Discard, nil, output); err != nil {
				return err
			}
			crd := ""
			if len(args) == 1 {
				crd = args[0]
			}
			return list(cmd.Context(), connection, crd, output, streams.Out)
		},
	}
	connection.AddFlags(cmd.PersistentFlags())
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format: wide, name, json or yaml.")
	cmd.AddCommand(renderCommand(streams), version.Command("feature-gates", streams.Out))
	// --version without -v, which is kubectl's verbosity.
	cmd.Flags().Bool("version", false, "Print the plugin's version and exit.")
	cmd.Version = version.String()
	cmd.SetVersionTemplate(version.Line("kubectl-feature_gates"))
	return cmd
}

// renderCommand prints the admission policies that enforce the gates of
// manifests, for clusters without the operator.
func renderCommand(streams genericiooptions.IOStreams) *cobra.Command {
	var files []string
	cmd := &cobra.Command{
		Use:   "render -f gates.yaml [-f crd.yaml]",
		Short: "Print the admission policies that enforce CustomFeatureGates, as YAML",
		Long: "Print the MutatingAdmissionPolicies and their bindings that enforce the CustomFeatureGates of the " +
			"manifests, with their CRDs, for a cluster without the operator. Nothing is sent to a cluster.",
		Example:       "  kubectl feature-gates render -f gates.yaml -f crd.yaml | kubectl apply --server-side -f -",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(*cobra.Command, []string) error {
			return renderFiles(streams.In, streams.Out, files)
		},
	}
	cmd.Flags().StringArrayVarP(&files, "filename", "f", nil, "A manifest file (- for stdin) with CustomFeatureGates and their CRDs; repeatable.")
	_ = cmd.MarkFlagRequired("filename") // fails only for a flag not defined above
	return cmd
}

// renderFiles renders the policies of the manifests in files.
func renderFiles(stdin io.Reader, w io.Writer, files []string) error {
	if len(files) == 0 {
		return errors.New("render needs -f with the CustomFeatureGates and their CRDs")
	}
	var readers []io.Reader
	for _, name := range files {
		if name == "-" {
			readers = append(readers, stdin)
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

// list prints the gates of crd ("" for every CRD) as output says.
func list(ctx context.Context, connection *genericclioptions.ConfigFlags, crd, output string, w io.Writer) error {
	cfg, err := connection.ToRESTConfig()
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
	rows, err := gatelist.Rows(ctx, c, crd)
	if err != nil {
		return err
	}
	return gatelist.Print(w, rows, output)
}

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

// Package cli is what every verb of `kubectl applyset` shares: the root
// command with kubectl's connection flags (Options), the clients they make,
// parents named as kubectl's --applyset names them, --dry-run, the question
// before a write, exit statuses, output formats and the manifests -f reads.
// The verbs live in the packages beside it, by audience, and
// internal/applysetcli puts them together.
package cli

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
	"github.com/applyset-operator/applyset-operator/internal/tracing"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// Options are what every verb shares: kubectl's connection flags and the
// streams.
type Options struct {
	Flags   *genericclioptions.ConfigFlags
	Streams genericiooptions.IOStreams
}

// NewRoot returns `kubectl applyset` without its verbs, and the Options its
// connection flags fill, which every verb is made with.
func NewRoot(streams genericiooptions.IOStreams) (*cobra.Command, *Options) {
	o := &Options{Flags: genericclioptions.NewConfigFlags(true), Streams: streams}
	// Each request to the API server is a span of the command's trace, when
	// the OTEL_* environment variables turn traces on (tracing.Setup).
	o.Flags.WrapConfigFn = tracing.WrapConfig
	cmd := &cobra.Command{
		Use:   "applyset",
		Short: "List, check, repair, preview, adopt and disband ApplySets (KEP-3659), whatever tool wrote them",
		Long: `kubectl applyset works on ApplySet parents: Secrets, ConfigMaps and custom resources
of CRDs labelled applyset.kubernetes.io/is-parent-type, written by kubectl apply --applyset,
by the applyset-operator or by any tool that keeps the contract. It needs no operator.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Help and errors name the command as its users type it.
		Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl applyset"},
	}
	cmd.CompletionOptions.DisableDefaultCmd = true
	cmd.SetIn(streams.In)
	cmd.SetOut(streams.Out)
	cmd.SetErr(streams.ErrOut)
	o.Flags.AddFlags(cmd.PersistentFlags())
	return cmd, o
}

// Clients reach the cluster the flags name.
type Clients struct {
	config   *rest.Config
	Mapper   meta.RESTMapper
	Metadata metadata.Interface
	Dynamic  dynamic.Interface
	Disco    discovery.DiscoveryInterface
	// Namespace is -n, or the kubeconfig context's namespace.
	Namespace string
}

// Clients connects to the cluster the flags name.
func (o *Options) Clients() (*Clients, error) {
	config, err := o.Flags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	// Reading every type of a large cluster is many requests; kubectl's
	// default of 5 per second would make it minutes.
	config.QPS, config.Burst = 50, 100
	c := &Clients{config: config}
	if c.Mapper, err = o.Flags.ToRESTMapper(); err != nil {
		return nil, err
	}
	if c.Disco, err = discovery.NewDiscoveryClientForConfig(config); err != nil {
		return nil, err
	}
	// Reading every type lists deprecated ones too (v1 Endpoints); the API
	// server's warnings about that are not the user's concern.
	quiet := rest.CopyConfig(config)
	quiet.WarningHandler = rest.NoWarnings{}
	if c.Metadata, err = metadata.NewForConfig(quiet); err != nil {
		return nil, err
	}
	if c.Dynamic, err = dynamic.NewForConfig(config); err != nil {
		return nil, err
	}
	if c.Namespace, _, err = o.Flags.ToRawKubeConfigLoader().Namespace(); err != nil {
		return nil, err
	}
	return c, nil
}

// Confirm asks question before a write, unless yes (--yes, or a server dry
// run, which writes nothing): nil goes on. An answer other than yes is
// ExitDeclined. Without a terminal to ask on, the write is refused rather
// than decided by whatever standard input holds: a script says --yes. The
// question goes to the error stream, as a progress line does, so that
// standard output holds only what -o asked for.
func (o *Options) Confirm(yes bool, question string) error {
	if yes {
		return nil
	}
	if f, ok := o.Streams.In.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		return fmt.Errorf("%q was not asked, as standard input is not a terminal: give --yes to go ahead; nothing changed", question)
	}
	fmt.Fprintf(o.Streams.ErrOut, "%s [y/N]: ", question)
	answer, _ := bufio.NewReader(o.Streams.In).ReadString('\n')
	if answer = strings.ToLower(strings.TrimSpace(answer)); answer == "y" || answer == "yes" {
		return nil
	}
	fmt.Fprintln(o.Streams.ErrOut, "Nothing changed")
	return &ExitError{Code: ExitDeclined}
}

// scheme knows the built-in types and the operator's.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(applyv1alpha1.AddToScheme(s))
	return s
}()

// Client reads and writes as the plugin's user.
func (c *Clients) Client() (client.Client, error) {
	return client.New(c.config, client.Options{Mapper: c.Mapper, Scheme: scheme})
}

// Engine is the apply engine acting as the plugin's user, under fieldManager.
func (c *Clients) Engine(fieldManager string) (*apply.Engine, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return &apply.Engine{Client: cl, FieldManager: fieldManager}, nil
}

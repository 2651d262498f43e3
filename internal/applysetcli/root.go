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

// Package applysetcli is `kubectl applyset`: the commands KEP-3659 proposes
// for every ApplySet in a cluster, whatever tool wrote it, over the same
// contract and checks the operator uses.
package applysetcli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
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
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
)

// Options are what every verb shares: kubectl's connection flags and the
// streams.
type Options struct {
	Flags   *genericclioptions.ConfigFlags
	Streams genericiooptions.IOStreams
}

// ExitError ends the command with a status besides 0 and 1 or without a
// message, as verify and diff do to tell findings from failures.
type ExitError struct {
	Code int
	// Err is printed unless it is nil.
	Err error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode is the process status for err: 0 without one, the ExitError's
// code, else 1.
func ExitCode(err error) int {
	var exit *ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.Code
	}
	return 1
}

// NewCommand returns `kubectl applyset` with its verbs.
func NewCommand(streams genericiooptions.IOStreams) *cobra.Command {
	o := &Options{Flags: genericclioptions.NewConfigFlags(true), Streams: streams}
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
	cmd.AddCommand(newListCommand(o), newViewCommand(o), newVerifyCommand(o), newDiffCommand(o), newDisbandCommand(o), newDeleteCommand(o), newApproveCommand(o),
		newReleaseFinalizersCommand(o), newValidateCommand(o), newAdoptCommand(o), newPushCommand(o))
	return cmd
}

// clients reach the cluster the flags name.
type clients struct {
	config   *rest.Config
	mapper   meta.RESTMapper
	metadata metadata.Interface
	dynamic  dynamic.Interface
	disco    discovery.DiscoveryInterface
	// namespace is -n, or the kubeconfig context's namespace.
	namespace string
}

func (o *Options) clients() (*clients, error) {
	config, err := o.Flags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	// Reading every type of a large cluster is many requests; kubectl's
	// default of 5 per second would make it minutes.
	config.QPS, config.Burst = 50, 100
	c := &clients{config: config}
	if c.mapper, err = o.Flags.ToRESTMapper(); err != nil {
		return nil, err
	}
	if c.disco, err = discovery.NewDiscoveryClientForConfig(config); err != nil {
		return nil, err
	}
	// Reading every type lists deprecated ones too (v1 Endpoints); the API
	// server's warnings about that are not the user's concern.
	quiet := rest.CopyConfig(config)
	quiet.WarningHandler = rest.NoWarnings{}
	if c.metadata, err = metadata.NewForConfig(quiet); err != nil {
		return nil, err
	}
	if c.dynamic, err = dynamic.NewForConfig(config); err != nil {
		return nil, err
	}
	if c.namespace, _, err = o.Flags.ToRawKubeConfigLoader().Namespace(); err != nil {
		return nil, err
	}
	return c, nil
}

// snapshot reads every parent (of namespace, or all) and every member.
func (o *Options) snapshot(cmd *cobra.Command, c *clients, sopts membership.SnapshotOptions) (*membership.Snapshot, error) {
	sopts.Progress = progress(o.Streams.ErrOut)
	snap, err := membership.Read(cmd.Context(), membership.Options{Discovery: c.disco, Metadata: c.metadata}, sopts)
	if err != nil {
		return nil, err
	}
	endProgress(o.Streams.ErrOut)
	for _, f := range snap.Failing {
		fmt.Fprintf(o.Streams.ErrOut, "Warning: cannot list %s: %v; its parents and members are missing\n", f.Resource.GroupResource(), f.Err)
	}
	return snap, nil
}

// scheme knows the built-in types and the operator's.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(applyv1alpha1.AddToScheme(s))
	return s
}()

// client reads and writes as the plugin's user.
func (c *clients) client() (client.Client, error) {
	return client.New(c.config, client.Options{Mapper: c.mapper, Scheme: scheme})
}

// engine is the apply engine acting as the plugin's user, under fieldManager.
func (c *clients) engine(fieldManager string) (*apply.Engine, error) {
	cl, err := c.client()
	if err != nil {
		return nil, err
	}
	return &apply.Engine{Client: cl, FieldManager: fieldManager}, nil
}

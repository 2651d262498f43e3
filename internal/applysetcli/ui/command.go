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

package ui

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
)

// NewCommand is the ui verb.
func NewCommand(o *cli.Options) *cobra.Command {
	var (
		flags options
		ask   *cli.Ask
	)
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Serve a web page of the ApplySets, their members and health, on 127.0.0.1",
		Long: `Serve a web page of every ApplySet parent you can list, as list shows them (tooling,
findings, health), and a page for each set with its members and their health, as view shows
them, and the conditions of the operator's own sets. Every read is made with your kubeconfig,
as you: RBAC decides what the page shows. Nothing runs in the cluster.

The first line of output is the URL to open. The server answers only on the loopback address
(127.0.0.1, localhost or [::1]) and only requests that name it so in their Host header, which
keeps other web sites your browser opens from reaching it. Ctrl-C stops it.

A plan's page has an Approve button, which writes the approval as you: ui asks before it
serves such a page, unless --yes. --read-only serves the pages without it, and asks nothing.`,
		Example: `  # Serve the sets of the current namespace on a free port, and open a browser
  kubectl applyset ui --open

  # Only to look: no Approve button, and no question
  kubectl applyset ui --read-only

  # Every namespace, on a chosen port
  kubectl applyset ui -A --port 8765`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkAddress(flags); err != nil {
				return err
			}
			if !flags.ReadOnly {
				if err := ask.Confirm("The page approves plans as you when its Approve button is pressed. Serve it?"); err != nil {
					return err
				}
			}
			c, err := o.Clients()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serve(ctx, o.Streams.Out, o.Streams.ErrOut, c, flags)
		},
	}
	f := cmd.Flags()
	f.StringVar(&flags.Address, "address", "127.0.0.1", "The address to listen on. One other machines can reach needs --listen-beyond-loopback.")
	f.IntVar(&flags.Port, "port", 0, "The port to listen on; 0 picks a free one.")
	f.BoolVar(&flags.Open, "open", false, "Open the page in the default browser (xdg-open), if one can be started.")
	f.BoolVar(&flags.ListenBeyondLoopback, "listen-beyond-loopback", false,
		"Confirm an --address other machines can reach. Reading a page then needs this run's read secret too, "+
			"as with --token-in-url; the printed URL carries it.")
	f.BoolVarP(&flags.Scope.AllNamespaces, "all-namespaces", "A", false, "Show the parents of every namespace, and the cluster-scoped ones.")
	f.BoolVar(&flags.TokenInURL, "token-in-url", false,
		"Ask for this run's read secret to read pages too, for a machine other users share: the printed URL and every "+
			"link of the pages carry it as the first segment of their path, and no cookie does. It is not the token the pages "+
			"send to change anything, and --open never puts it on a command line.")
	flags.Hosts.BindFlags(f)
	ask = o.AddAsk(cmd, "Serve the page, Approve buttons included, without asking.", false)
	f.BoolVar(&flags.ReadOnly, "read-only", false, "Serve the pages without the Approve button; nothing is asked, and nothing written.")
	f.StringVarP(&flags.Scope.Selector, "selector", "l", "", "Only parents whose labels match this selector (e.g. team=web).")
	return cmd
}

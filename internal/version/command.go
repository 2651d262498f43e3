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

package version

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// Command is a plugin's `version` verb, shaped as kubectl's: the client's
// version as a line, or with -o json|yaml as clientVersion. A plugin has no
// server version of its own to print.
// plugin is its name after kubectl (applyset). The -o value is checked with
// the arguments, so that a plugin that makes argument errors usage errors
// treats it as one.
func Command(plugin string, out io.Writer) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the plugin's version",
		Long: "Print the version of this plugin, which is the version of the applyset-operator release it came " +
			"with, as kubectl version --client prints kubectl's.",
		Example: "  kubectl " + plugin + " version\n  kubectl " + plugin + " version -o json",
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.NoArgs(cmd, args); err != nil {
				return err
			}
			return checkOutput(output)
		},
		RunE: func(*cobra.Command, []string) error {
			return print(out, output)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "One of json or yaml; a line by default.")
	return cmd
}

// print writes the version as `kubectl version --client` does.
func print(out io.Writer, output string) error {
	doc := map[string]Info{"clientVersion": get()}
	switch output {
	case "":
		_, err := fmt.Fprintf(out, "Client Version: %s\n", String())
		return err
	case "json":
		data, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "%s\n", data)
		return err
	case "yaml":
		data, err := yaml.Marshal(doc)
		if err != nil {
			return err
		}
		_, err = out.Write(data)
		return err
	default:
		return checkOutput(output)
	}
}

func checkOutput(output string) error {
	if output != "" && output != "json" && output != "yaml" {
		return fmt.Errorf("unknown output format %q: want json, yaml", output)
	}
	return nil
}

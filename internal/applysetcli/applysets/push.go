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

package applysets

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/artifact"
	"github.com/applyset-operator/applyset-operator/internal/fetchpolicy"
	"github.com/applyset-operator/applyset-operator/internal/ociartifact"
)

// What push archives, at most: the operator reads no more files or longer
// paths from an artifact (internal/declared).
const (
	maxPushFiles      = 10000
	maxPushPathLength = 1024
)

// reproducible is the creation time push writes unless told otherwise, as
// flux push artifact --reproducible does, so that the same directory always
// gives the same digest.
var reproducible = time.Unix(0, 0).UTC()

type pushOptions struct {
	tag         string
	insecure    bool
	source      string
	revision    string
	created     string
	annotations []string
	maxInput    int64
	ask         *cli.Ask
}

func newPushCommand(o *cli.Options) *cobra.Command {
	p := &pushOptions{}
	cmd := &cobra.Command{
		Use:   "push DIR oci://HOST/REPOSITORY --tag TAG",
		Short: "Publish a directory of manifests as an OCI artifact in Flux's format, for oci sources",
		Long: `push archives DIR and writes it to an OCI registry as flux push artifact does: an image
manifest whose config has media type application/vnd.cncf.flux.config.v1+json and whose one
layer is a gzip-compressed tarball of DIR (application/vnd.cncf.flux.content.v1.tar+gzip),
annotated with org.opencontainers.image.created, .source and .revision. The operator's oci
sources and Flux's OCIRepository both read it. It prints the artifact's digest, which an oci
source's digest field pins.

The tarball is the same for the same files, whatever their times, owners, modes or the
order the file system lists them in, and the creation time is 1970-01-01T00:00:00Z unless
--created says otherwise: pushing the same directory twice gives the same digest. Links to
files inside DIR are archived as those files; links leading out of DIR or to directories,
devices and other special files are refused, and .git directories are left out.

Credentials are yours: from DOCKER_CONFIG or ~/.docker/config.json and the credential
helpers it names, as docker login wrote them.

It says what it will push and asks first, unless --yes: a tag that exists is overwritten.`,
		Example: `  # Publish an overlay, tagged with the commit, from a Git checkout
  kubectl applyset push deploy/ oci://registry.example.com/team/app --tag "$(git rev-parse --short HEAD)" \
    --source "$(git config --get remote.origin.url)" --revision "main@sha1:$(git rev-parse HEAD)"

  # To a registry on this machine, over plain HTTP
  kubectl applyset push deploy/ oci://127.0.0.1:5000/app --tag v1 --insecure --yes`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return p.run(cmd.Context(), o, args[0], args[1])
		},
	}
	cmd.Flags().StringVar(&p.tag, "tag", "", "The tag to write the artifact under. Required.")
	cmd.Flags().BoolVar(&p.insecure, "insecure", false, "Reach the registry over plain HTTP.")
	cmd.Flags().StringVar(&p.source, "source", "", "Where the files come from, such as a Git URL (org.opencontainers.image.source).")
	cmd.Flags().StringVar(&p.revision, "revision", "", "Which revision of the source they are, such as main@sha1:<commit> (org.opencontainers.image.revision).")
	cmd.Flags().StringVar(&p.created, "created", "", "The creation time: RFC 3339, or now; 1970-01-01T00:00:00Z if empty, for reproducible digests.")
	cmd.Flags().StringArrayVar(&p.annotations, "annotation", nil, "A further manifest annotation, key=value; repeatable.")
	cmd.Flags().Int64Var(&p.maxInput, "max-input-size", cli.DefaultMaxInput, "The most bytes the files of DIR may hold.")
	p.ask = o.AddAsk(cmd, "Push without asking.", false)
	_ = cmd.MarkFlagRequired("tag")
	return cmd
}

func (p *pushOptions) run(ctx context.Context, o *cli.Options, dir, url string) error {
	meta, err := p.metadata()
	if err != nil {
		return err
	}
	files, err := artifact.ReadDir(dir, artifact.Limits{MaxBytes: p.maxInput, MaxFiles: maxPushFiles, MaxPathLength: maxPushPathLength})
	if err != nil {
		return fmt.Errorf("reading %s: %w", dir, err)
	}
	if files.Len() == 0 {
		return fmt.Errorf("reading %s: no files to push", dir)
	}
	question := fmt.Sprintf("Push %d files (%d bytes) of %s to %s:%s?", files.Len(), files.Size(), dir, url, p.tag)
	if err := p.ask.Confirm(question); err != nil {
		return err
	}
	// The person pushing reaches the registry as any of their tools would.
	opts := ociartifact.Options{Policy: fetchpolicy.Unrestricted(), Insecure: p.insecure, UserDockerConfig: true}
	digest, err := ociartifact.Push(ctx, files, url, p.tag, meta, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Streams.ErrOut, "Pushed %d files (%d bytes) to %s:%s\n", files.Len(), files.Size(), url, p.tag)
	fmt.Fprintln(o.Streams.Out, digest)
	return nil
}

// metadata reads the annotation flags.
func (p *pushOptions) metadata() (ociartifact.Metadata, error) {
	meta := ociartifact.Metadata{Source: p.source, Revision: p.revision, Created: reproducible}
	switch p.created {
	case "":
	case "now":
		meta.Created = time.Now()
	default:
		t, err := time.Parse(time.RFC3339, p.created)
		if err != nil {
			return meta, fmt.Errorf("--created %q: want RFC 3339 or now: %w", p.created, err)
		}
		meta.Created = t
	}
	annotations := map[string]string{}
	for _, a := range p.annotations {
		key, value, ok := strings.Cut(a, "=")
		if !ok || key == "" {
			return meta, fmt.Errorf("--annotation %q: want key=value", a)
		}
		if _, dup := annotations[key]; dup {
			return meta, fmt.Errorf("--annotation %q: %s given twice", a, key)
		}
		annotations[key] = value
	}
	if len(annotations) > 0 {
		meta.Annotations = annotations
	}
	return meta, nil
}

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

package ociartifact

const (
	// fluxConfigMediaType is the media type of the config of Flux's artifacts.
	fluxConfigMediaType = "application/vnd.cncf.flux.config.v1+json"
	// fluxContentMediaType is the media type of the layer of Flux's
	// artifacts: a gzip-compressed tarball.
	fluxContentMediaType = "application/vnd.cncf.flux.content.v1.tar+gzip"
	// ociLayerMediaType is the plain OCI gzip-compressed tarball layer.
	ociLayerMediaType = "application/vnd.oci.image.layer.v1.tar+gzip"

	// CreatedAnnotation says when the artifact was made (RFC 3339).
	CreatedAnnotation = "org.opencontainers.image.created"
	// SourceAnnotation says where the artifact's files come from.
	SourceAnnotation = "org.opencontainers.image.source"
	// RevisionAnnotation says which revision of the source they are.
	RevisionAnnotation = "org.opencontainers.image.revision"
)

// acceptedLayerMediaTypes are the layers Pull reads: gzip-compressed
// tarballs only. Others, such as uncompressed or zstd tarballs, Docker's
// layers or Flux's static (single file) layers, are refused.
var acceptedLayerMediaTypes = map[string]bool{
	fluxContentMediaType: true,
	ociLayerMediaType:    true,
}

#!/usr/bin/env bash
# Copyright 2026 The applyset-operator Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# Vendors the browser libraries of `kubectl applyset ui` into
# internal/applysetcli/ui/static/vendor/, where the binary embeds them: the page's
# Content-Security-Policy (default-src 'self') loads nothing from elsewhere.
#   @dagrejs/dagre  graph layout of a set's members (static/graph.js), as the global
#                   `dagre` of dist/dagre.min.js; into vendor/dagre/ with its LICENSE
#                   and a VERSION file.
# Each package is fetched with `npm pack` at a pinned version and checked against the
# pinned sha512 of its tarball before anything is copied. To update one, change its
# version and integrity here (`npm view @dagrejs/dagre@VERSION dist.integrity`), run
# this script and commit what it wrote. Needs npm, tar and coreutils.
set -euo pipefail

dagre_version=3.1.3
dagre_integrity='sha512-X4aUTwOReZvthaZWOVHqlJ52/ZdhZFEM4+Lh/uR4XooUSLE6p71bcy7MPGzYnNUcNh+nj+i/qJQpCMIdQnSmrg=='

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
vendor="${root}/internal/applysetcli/ui/static/vendor"

log() { printf 'vendor-ui: %s\n' "$*" >&2; }

for tool in npm tar sha512sum base64 od; do
  command -v "${tool}" >/dev/null 2>&1 || { log "${tool} is needed and not on PATH"; exit 1; }
done

work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

# fetch PACKAGE VERSION INTEGRITY: prints the path of PACKAGE's tarball at VERSION,
# unpacked under ${work}/PACKAGE, after checking its sha512 against INTEGRITY.
fetch() {
  local package="$1" version="$2" integrity="$3"
  local dir="${work}/${package}"
  mkdir -p "${dir}"
  log "fetching ${package}@${version}"
  local tarball
  tarball="$(cd "${dir}" && npm pack --silent "${package}@${version}" | tail -n 1)"
  tarball="${dir}/${tarball}"
  [[ -f "${tarball}" ]] || { log "npm pack wrote no tarball for ${package}@${version}"; exit 1; }
  # npm's integrity is "sha512-" and the base64 of the digest: compare it in hex.
  local got want
  got="$(sha512sum "${tarball}" | cut -d' ' -f1)"
  want="$(base64 -d <<<"${integrity#sha512-}" | od -An -v -tx1 | tr -d ' \n')"
  if [[ "${integrity}" != sha512-* || "${got}" != "${want}" ]]; then
    log "${package}@${version}: tarball sha512 ${got}, want ${want} (${integrity})"
    exit 1
  fi
  tar -xzf "${tarball}" -C "${dir}"
  echo "${dir}/package"
}

pkg="$(fetch @dagrejs/dagre "${dagre_version}" "${dagre_integrity}")"
out="${vendor}/dagre"
rm -rf "${out}"
mkdir -p "${out}"
cp "${pkg}/dist/dagre.min.js" "${pkg}/LICENSE" "${out}/"
echo "${dagre_version}" >"${out}/VERSION"
log "wrote ${out#"${root}"/}: dagre.min.js, LICENSE, VERSION (${dagre_version})"

#!/usr/bin/env bash
# Prints the version of this checkout, the one source of the version that the
# Makefile stamps into the manager, the plugins, the image tag, the chart and
# the install manifest: `git describe` of the newest v* tag (v0.1.0 on the tag,
# v0.1.0-3-g1a2b3c4d5e6f three commits past it, -dirty with uncommitted
# changes); v0.0.0-g<commit> before the first tag; v0.0.0-dev outside git.
# Each form is SemVer after its "v", an image tag and a tooling version
# (internal/version checks them).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if described="$(git describe --tags --match 'v[0-9]*' --abbrev=12 --dirty 2>/dev/null)"; then
  echo "${described}"
elif commit="$(git rev-parse --short=12 HEAD 2>/dev/null)"; then
  dirty=""
  git diff --quiet HEAD -- 2>/dev/null || dirty="-dirty"
  echo "v0.0.0-g${commit}${dirty}"
else
  echo "v0.0.0-dev"
fi

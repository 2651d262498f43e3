#!/usr/bin/env bash
# Installs kube-apiserver, etcd and kubectl for one pinned Kubernetes version into
# bin/k8s/<version>/ and prints that directory on stdout (progress goes to stderr).
#
# By default the binaries are built from source fetched through the Go module proxy,
# so this works wherever Go modules resolve and reaches for no other host:
#   - kube-apiserver and kubectl from k8s.io/kubernetes, in a scratch module that
#     replaces every k8s.io/<staging> module with its published v0.x release;
#   - etcd from go.etcd.io/etcd/server/v3.
# KUBEBUILDER_ASSETS, when set to a directory holding all three, is used as is.
# ENVTEST_DOWNLOAD=1 opts in to downloading prebuilt envtest binaries instead.
#
# With --controller-manager it installs kube-controller-manager, built the same way, for
# the local control plane of `make run` and the suites that run it (ServiceAccounts,
# namespace deletion, garbage collection, Deployment status), and prints its directory.
# With --node it installs instead kubelet, kube-controller-manager, kube-scheduler and
# kube-proxy for the e2e cluster (hack/e2e-cluster.sh). In both modes KUBEBUILDER_ASSETS
# is used when it holds them too.
set -euo pipefail

KUBERNETES_VERSION="${KUBERNETES_VERSION:-v1.37.1}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${root}/bin/k8s/${KUBERNETES_VERSION}"
binaries=(kube-apiserver etcd kubectl)
# The binaries built from k8s.io/kubernetes: all of them are imported by the
# scratch module so that one go.sum serves every build.
kubernetes_commands=(kube-apiserver kubectl kubelet kube-controller-manager kube-scheduler kube-proxy)
kubernetes_binaries=(kube-apiserver kubectl)
# extra=1 for the binaries beyond envtest's three, which no download provides.
extra=0
case "${1:-}" in
  "") ;;
  --controller-manager) extra=1; binaries=(kube-controller-manager) ;;
  --node) extra=1; binaries=(kubelet kube-controller-manager kube-scheduler kube-proxy) ;;
  *) printf 'usage: %s [--controller-manager | --node]\n' "$0" >&2; exit 2 ;;
esac
[[ "${extra}" == 0 ]] || kubernetes_binaries=("${binaries[@]}")

log() { printf 'control-plane: %s\n' "$*" >&2; }
die() { printf 'control-plane: error: %s\n' "$*" >&2; exit 1; }

complete() {
  local dir="$1" b
  for b in "${binaries[@]}"; do [[ -x "${dir}/${b}" ]] || return 1; done
}

if [[ -n "${KUBEBUILDER_ASSETS:-}" ]]; then
  if complete "${KUBEBUILDER_ASSETS}"; then
    echo "${KUBEBUILDER_ASSETS}"
    exit 0
  fi
  [[ "${extra}" == 1 ]] || die "KUBEBUILDER_ASSETS=${KUBEBUILDER_ASSETS} lacks one of: ${binaries[*]}"
fi

if complete "${dest}"; then
  echo "${dest}"
  exit 0
fi

mkdir -p "${root}/bin/k8s"
# One build at a time: test binaries started in parallel may all ask at once.
exec 9>"${root}/bin/k8s/.lock"
flock 9
if complete "${dest}"; then
  echo "${dest}"
  exit 0
fi

command -v go >/dev/null || die "go is not on PATH; install Go $(sed -n 's/^go //p' "${root}/go.mod") or newer"
mkdir -p "${dest}"

if [[ "${ENVTEST_DOWNLOAD:-0}" == "1" && "${extra}" == 0 ]]; then
  log "ENVTEST_DOWNLOAD=1: downloading prebuilt binaries with setup-envtest"
  assets="$(cd "${root}" && go run sigs.k8s.io/controller-runtime/tools/setup-envtest@release-0.25 \
    use "${KUBERNETES_VERSION#v}" --bin-dir "${root}/bin/k8s/download" -p path)" ||
    die "setup-envtest could not download Kubernetes ${KUBERNETES_VERSION}"
  for b in "${binaries[@]}"; do cp "${assets}/${b}" "${dest}/${b}"; done
  echo "${dest}"
  exit 0
fi

scratch="${root}/bin/k8s/.build"
mkdir -p "${scratch}"

build_kubernetes() {
  local mod="${scratch}/kubernetes-${KUBERNETES_VERSION}" gomod minor staging
  mkdir -p "${mod}"
  cd "${mod}"
  log "resolving k8s.io/kubernetes@${KUBERNETES_VERSION} through the Go module proxy"
  gomod="$(go mod download -json "k8s.io/kubernetes@${KUBERNETES_VERSION}" | sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')"
  [[ -n "${gomod}" && -f "${gomod}" ]] ||
    die "k8s.io/kubernetes@${KUBERNETES_VERSION} is not served by the module proxy ($(go env GOPROXY))"
  minor="${KUBERNETES_VERSION#v1.}"
  minor="${minor%%.*}"
  staging="v0.${KUBERNETES_VERSION#v1.}"
  {
    echo "module local/kubernetes-build"
    echo
    echo "go $(go env GOVERSION | sed 's/^go//; s/^\([0-9]*\.[0-9]*\).*/\1/')"
    echo
    echo "require k8s.io/kubernetes ${KUBERNETES_VERSION}"
    echo
    # k8s.io/kubernetes points each staging module at ./staging/src; published
    # releases of the same code carry the version v0.<minor>.<patch>.
    sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*#replace \1 => \1 '"${staging}"'#p' "${gomod}"
  } > go.mod
  {
    printf '//go:build tools\n\npackage tools\n\nimport (\n'
    printf '\t_ "k8s.io/kubernetes/cmd/%s"\n' "${kubernetes_commands[@]}"
    printf ')\n'
  } > tools.go
  log "downloading modules for ${kubernetes_binaries[*]}"
  GOFLAGS=-mod=mod go mod tidy >&2 || die "could not resolve the modules of k8s.io/kubernetes@${KUBERNETES_VERSION}"
  local ld="" pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X ${pkg}.gitVersion=${KUBERNETES_VERSION}"
    ld+=" -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${minor}"
    ld+=" -X ${pkg}.gitTreeState=clean"
    ld+=" -X ${pkg}.buildDate=1970-01-01T00:00:00Z"
  done
  for b in "${kubernetes_binaries[@]}"; do
    complete_one "${b}" && continue
    log "building ${b} ${KUBERNETES_VERSION}$(build_time "${b}")"
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w${ld}" -o "${dest}/${b}.tmp" "k8s.io/kubernetes/cmd/${b}" >&2 ||
      die "building ${b} failed"
    mv "${dest}/${b}.tmp" "${dest}/${b}"
  done
}

build_etcd() {
  complete_one etcd && return 0
  local mod="${scratch}/etcd-${ETCD_VERSION}"
  mkdir -p "${mod}"
  cd "${mod}"
  log "resolving go.etcd.io/etcd/server/v3@${ETCD_VERSION} through the Go module proxy"
  printf 'module local/etcd-build\n\ngo 1.25\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "${ETCD_VERSION}" > go.mod
  printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' > tools.go
  GOFLAGS=-mod=mod go mod tidy >&2 || die "could not resolve go.etcd.io/etcd/server/v3@${ETCD_VERSION}"
  log "building etcd ${ETCD_VERSION}"
  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "${dest}/etcd.tmp" go.etcd.io/etcd/server/v3 >&2 ||
    die "building etcd failed"
  mv "${dest}/etcd.tmp" "${dest}/etcd"
}

complete_one() { [[ -x "${dest}/$1" ]]; }

# build_time says how long a build takes on 2 cores, for the progress line.
build_time() {
  case "$1" in
    kube-apiserver | kubelet) echo ' (a few minutes on 2 cores)' ;;
    kube-controller-manager) echo ' (a minute or two on 2 cores)' ;;
  esac
}

[[ "${extra}" == 1 ]] || build_etcd
build_kubernetes
complete "${dest}" || die "binaries missing from ${dest} after the build"
log "ready in ${dest}"
echo "${dest}"

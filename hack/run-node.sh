#!/usr/bin/env bash
# `make run NODE=1`: the operator in a single-node cluster whose Pods run. Runs inside
# the cluster of hack/e2e-cluster.sh (`hack/e2e-cluster.sh run -- hack/run-node.sh`),
# which sets KUBECONFIG, CONTAINERD_ADDRESS and puts kubectl on PATH. It imports the
# manager image `make image` wrote into the node's containerd, installs the operator
# as a user does, config/default with that image (IMG) applied server-side,
# waits until it is available, then follows its log until Ctrl-C, which stops the
# cluster.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
image="${IMAGE_TAR:-${root}/bin/image/manager.tar}"
namespace=applyset-operator-system
deployment=applyset-operator-controller-manager

log() { printf 'run-node: %s\n' "$*" >&2; }

log "importing ${image} into the node's containerd"
ctr images import "${image}" >/dev/null
: "${IMG:?IMG names the image make image wrote}"
log "installing the operator: config/default with the image ${IMG}, kubectl apply --server-side"
kubectl kustomize "${root}/config/default" |
  sed "s#image: ghcr.io/applyset-operator/applyset-operator:.*#image: ${IMG}#" |
  kubectl apply --server-side -f - >&2
log "waiting for the operator's Pod (the first start waits for its webhook certificate: a minute or two)"
kubectl -n "${namespace}" rollout status "deployment/${deployment}" --timeout=5m >&2

log "the operator runs in the cluster, and its node runs Pods. From another terminal, as root:"
log "    hack/e2e-cluster.sh exec -- bash      # a shell in the cluster, with KUBECONFIG and kubectl set"
log "    export PATH=${root}/bin:\$PATH    # there: the kubectl plugins"
log "the operator's log follows; Ctrl-C stops the cluster"
# The log ends when the Pod does; the cluster stays up until Ctrl-C.
kubectl -n "${namespace}" logs -f "deployment/${deployment}" || true
sleep infinity &
wait "$!"

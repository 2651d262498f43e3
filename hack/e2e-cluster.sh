#!/usr/bin/env bash
# A single-node Kubernetes cluster whose Pods really run, for the e2e suite
# (`make test-e2e`). Everything runs in namespaces of its own: a network namespace
# (node address 10.200.0.1, Pods on a CNI bridge, kube-proxy's iptables rules and the
# net.* sysctls stay in it, nothing is reachable from or leaves it), a mount namespace
# (runtime mounts vanish with it) and a PID namespace (no container or shim outlives it).
# State, logs and certificates live under one directory (E2E_STATE_DIR, bin/e2e).
#
#   hack/e2e-cluster.sh run -- COMMAND [ARG...]  start, run COMMAND inside, stop
#   hack/e2e-cluster.sh up                       start and run until Ctrl-C
#   hack/e2e-cluster.sh exec -- COMMAND [ARG...] run COMMAND inside a cluster `up` runs
#   hack/e2e-cluster.sh check                    exit 0 when this machine can run one
#
# COMMAND runs with KUBECONFIG (cluster admin), CONTAINERD_ADDRESS and
# CONTAINERD_NAMESPACE (for ctr) and kubectl on PATH. Needs root, Linux, and the Debian
# packages containerd, runc, containernetworking-plugins and iptables (installed with
# apt-get when missing). kubelet, kube-controller-manager, kube-scheduler and kube-proxy
# are built from the Go module proxy like the control plane (hack/setup-control-plane.sh).
# Stopping (also on failure or Ctrl-C) stops every process by PID, removes the cgroups
# kubelet made and puts back every global sysctl kubelet changed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
self="${root}/hack/e2e-cluster.sh"
state="${E2E_STATE_DIR:-${root}/bin/e2e}"
lock=/run/lock/applyset-operator-e2e.lock
node_ip=10.200.0.1
node_name=e2e-node
pod_cidr=10.244.0.0/24
service_cidr=10.96.0.0/16
service_ip=10.96.0.1
cgroup_root=applyset-operator-e2e
pause_image=docker.io/applyset-operator-e2e/pause:1
# Global sysctls kubelet sets at start (its kernel tunables), and conntrack's table
# size, which only the initial network namespace may set.
watched_sysctls=(vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops
  kernel/keys/root_maxkeys kernel/keys/root_maxbytes net/netfilter/nf_conntrack_max)

log() { printf 'e2e-cluster: %s\n' "$*" >&2; }
die() { printf 'e2e-cluster: error: %s\n' "$*" >&2; exit 1; }

usage() { sed -n '9,12p' "${self}" | sed 's/^# //' >&2; exit 2; }

# ---- outside the namespaces -------------------------------------------------------

preflight() {
  [[ "$(uname -s)" == Linux ]] || die "needs Linux (network, mount and PID namespaces)"
  [[ "${EUID}" == 0 ]] ||
    die "needs root: it creates namespaces, cgroups and mounts and runs kubelet and containerd (try: sudo $0 $*)"
  command -v unshare >/dev/null && command -v nsenter >/dev/null && command -v ip >/dev/null ||
    die "needs unshare, nsenter (util-linux) and ip (iproute2)"
  command -v openssl >/dev/null || die "needs openssl for the cluster's certificates"
}

ensure_packages() {
  local missing=()
  command -v containerd >/dev/null || missing+=(containerd)
  command -v runc >/dev/null || missing+=(runc)
  [[ -x /usr/lib/cni/bridge && -x /usr/lib/cni/host-local ]] || missing+=(containernetworking-plugins)
  command -v iptables >/dev/null || missing+=(iptables)
  [[ ${#missing[@]} == 0 ]] && return 0
  command -v apt-get >/dev/null || die "missing ${missing[*]}, and apt-get is not here to install them"
  log "installing ${missing[*]} with apt-get"
  apt-get update -qq >&2 || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 ||
    die "apt-get install ${missing[*]} failed"
}

# check says whether this machine can run the cluster: root, the namespaces'
# tools, and the packages present or installable with apt-get.
check() {
  (preflight) || return 1
  local p missing=()
  command -v containerd >/dev/null || missing+=(containerd)
  command -v runc >/dev/null || missing+=(runc)
  [[ -x /usr/lib/cni/bridge ]] || missing+=(containernetworking-plugins)
  command -v iptables >/dev/null || missing+=(iptables)
  [[ ${#missing[@]} == 0 ]] && return 0
  command -v apt-get >/dev/null || { log "missing ${missing[*]} and no apt-get"; return 1; }
  apt-get update -qq >&2 || { log "apt-get update failed"; return 1; }
  for p in "${missing[@]}"; do
    # Read whole: grep -q would close the pipe early, and pipefail would
    # count apt-cache's SIGPIPE as a failure.
    [[ "$(apt-cache policy "${p}")" =~ Candidate:\ [0-9] ]] || { log "apt-get cannot install ${p}"; return 1; }
  done
}

write_certs() {
  local d="${state}/pki" t
  mkdir -p "${d}"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=applyset-operator-e2e-ca \
    -keyout "${d}/ca.key" -out "${d}/ca.crt" 2>/dev/null
  sign() { # name subject extensions
    openssl req -newkey rsa:2048 -nodes -subj "$2" -keyout "${d}/$1.key" -out "${d}/$1.csr" 2>/dev/null
    openssl x509 -req -in "${d}/$1.csr" -CA "${d}/ca.crt" -CAkey "${d}/ca.key" -CAcreateserial \
      -days 2 -out "${d}/$1.crt" -extfile <(printf '%s\n' "$3") 2>/dev/null
  }
  sign apiserver /CN=kube-apiserver "subjectAltName=IP:${node_ip},IP:${service_ip},DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local
extendedKeyUsage=serverAuth"
  sign apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" "extendedKeyUsage=clientAuth"
  openssl genrsa -out "${d}/sa.key" 2048 2>/dev/null
  openssl rsa -in "${d}/sa.key" -pubout -out "${d}/sa.pub" 2>/dev/null
  # Clients authenticate with static tokens: one per component, as the identity the
  # built-in RBAC roles (and the Node authorizer) expect.
  : >"${d}/tokens.csv"
  local file user group token
  while IFS='|' read -r file user group; do
    token="$(openssl rand -hex 16)"
    printf '%s,%s,%s,"%s"\n' "${token}" "${user}" "${user}" "${group}" >>"${d}/tokens.csv"
    kubeconfig "${token}" >"${state}/${file}.kubeconfig"
  done <<EOF
admin|e2e-admin|system:masters
kubelet|system:node:${node_name}|system:nodes
controller-manager|system:kube-controller-manager|
scheduler|system:kube-scheduler|
kube-proxy|system:kube-proxy|
EOF
}

kubeconfig() {
  cat <<EOF
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster: {server: "https://${node_ip}:6443", certificate-authority: "${state}/pki/ca.crt"}
users:
- name: e2e
  user: {token: "$1"}
contexts:
- name: e2e
  context: {cluster: e2e, user: e2e}
current-context: e2e
EOF
}

write_configs() {
  mkdir -p "${state}/containerd" "${state}/cni/net.d" "${state}/log"
  cat >"${state}/containerd/config.toml" <<EOF
version = 2
root = "${state}/containerd/root"
state = "${state}/containerd/state"
[grpc]
  address = "${state}/containerd/containerd.sock"
[plugins."io.containerd.internal.v1.opt"]
  path = "${state}/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${pause_image}"
  # root here cannot lower oom_score_adj: without this every sandbox fails to start.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${state}/cni/net.d"
EOF
  cat >"${state}/cni/net.d/10-e2e.conflist" <<EOF
{"cniVersion": "0.4.0", "name": "e2e", "plugins": [{"type": "bridge", "bridge": "cni0",
  "isGateway": true, "ipMasq": false, "hairpinMode": true,
  "ipam": {"type": "host-local", "dataDir": "${state}/cni/ipam",
    "ranges": [[{"subnet": "${pod_cidr}"}]], "routes": [{"dst": "0.0.0.0/0"}]}}]}
EOF
  cat >"${state}/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# This machine has cgroup v1 and no systemd.
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /${cgroup_root}
containerRuntimeEndpoint: unix://${state}/containerd/containerd.sock
address: ${node_ip}
healthzBindAddress: 127.0.0.1
readOnlyPort: 0
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: ${state}/pki/ca.crt}
authorization: {mode: Webhook}
clusterDomain: cluster.local
failSwapOn: false
oomScoreAdj: 0
serializeImagePulls: false
# The node's disk is the host's, shared with whatever else runs there: its free space
# is not the suite's to keep. A threshold in percent of a large disk is gigabytes, and
# under it kubelet taints the node and evicts the operator's Pods; 0% turns the disk
# signals off (as kind does), and a disk that does fill fails with ENOSPC, plainly.
evictionHard: {memory.available: 100Mi, nodefs.available: "0%", nodefs.inodesFree: "0%",
  imagefs.available: "0%", imagefs.inodesFree: "0%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
maxPods: 30
# Mounted Secrets (the webhook's certificate) follow their object within seconds.
syncFrequency: 10s
EOF
  cat >"${state}/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clientConnection: {kubeconfig: ${state}/kube-proxy.kubeconfig}
hostnameOverride: ${node_name}
clusterCIDR: ${pod_cidr}
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 127.0.0.1:10256
nodePortAddresses: [primary]
oomScoreAdj: 0
# Leave conntrack's global settings as they are.
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF
}

build_pause_image() {
  local out="${root}/bin/e2e-images"
  mkdir -p "${out}"
  [[ -f "${out}/pause.tar" ]] && return 0
  log "building the pause image"
  (cd "${root}/hack/tools" &&
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "${out}/pause" ./pause &&
    go run ./image -binary "${out}/pause" -path /pause -tag "${pause_image}" -out "${out}/pause.tar" >/dev/null) ||
    die "building the pause image failed"
}

sysctl_snapshot() { # every readable global sysctl but the volatile ones, as path=value
  grep -rs --exclude-dir=net -e '' /proc/sys 2>/dev/null |
    grep -Ev '^/proc/sys/(kernel/random|kernel/ns_last_pid|kernel/pty/nr|fs/(dentry-state|inode-nr|inode-state|file-nr|quota))' |
    sort || true
}

save_sysctls() {
  local s
  mkdir -p "${state}/sysctl"
  for s in "${watched_sysctls[@]}"; do
    [[ -r "/proc/sys/${s}" ]] && cat "/proc/sys/${s}" >"${state}/sysctl/${s//\//.}"
  done
  sysctl_snapshot >"${state}/sysctl/all.before"
}

restore_sysctls() {
  local s saved now
  for s in "${watched_sysctls[@]}"; do
    [[ -f "${state}/sysctl/${s//\//.}" ]] || continue
    saved="$(cat "${state}/sysctl/${s//\//.}")"
    now="$(cat "/proc/sys/${s}")"
    if [[ "${now}" != "${saved}" ]]; then
      echo "${saved}" >"/proc/sys/${s}" && log "restored ${s//\//.} to ${saved} (was ${now})" ||
        log "WARNING: could not restore ${s//\//.} to ${saved}"
    fi
  done
  [[ -f "${state}/sysctl/all.before" ]] || return 0
  local changed
  changed="$(diff <(cat "${state}/sysctl/all.before") <(sysctl_snapshot) | grep '^>' || true)"
  [[ -z "${changed}" ]] || log "WARNING: global sysctls changed while the cluster ran (not by a process known to it?):
${changed}"
}

cgroup_hierarchies() { find /sys/fs/cgroup -mindepth 1 -maxdepth 1 -type d; }

make_cgroups() {
  local h
  for h in $(cgroup_hierarchies); do
    mkdir -p "${h}/${cgroup_root}"
    if [[ -f "${h}/cpuset.cpus" ]]; then
      cat "${h}/cpuset.cpus" >"${h}/${cgroup_root}/cpuset.cpus"
      cat "${h}/cpuset.mems" >"${h}/${cgroup_root}/cpuset.mems"
    fi
  done
}

remove_cgroups() {
  local h try left
  for try in $(seq 1 20); do
    left=0
    for h in $(cgroup_hierarchies); do
      [[ -d "${h}/${cgroup_root}" ]] || continue
      find "${h}/${cgroup_root}" -depth -type d -exec rmdir {} \; 2>/dev/null || left=1
    done
    [[ "${left}" == 0 ]] && return 0
    sleep 0.5
  done
  log "WARNING: cgroups left under /sys/fs/cgroup/*/${cgroup_root}: $(cat /sys/fs/cgroup/*/"${cgroup_root}"/cgroup.procs 2>/dev/null | tr '\n' ' ')"
}

inner_pid() { cat "${state}/inner.pid" 2>/dev/null; }

outer_cleanup() {
  local rc=$? pid
  trap - EXIT INT TERM
  pid="$(inner_pid || true)"
  if [[ -n "${unshare_pid:-}" ]] && kill -0 "${unshare_pid}" 2>/dev/null; then
    [[ -n "${pid}" ]] && kill -TERM "${pid}" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "${unshare_pid}" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "${unshare_pid}" 2>/dev/null; then
      log "the cluster did not stop within 30s; killing it"
      [[ -n "${pid}" ]] && kill -KILL "${pid}" 2>/dev/null || true
      wait "${unshare_pid}" 2>/dev/null || true
    fi
  fi
  remove_cgroups
  restore_sysctls
  rm -f "${state}/inner.pid"
  log "stopped; logs are in ${state}/logs"
  exit "${rc}"
}

outer() { # run|up [COMMAND...]
  preflight "$@"
  mkdir -p "$(dirname "${lock}")"
  exec 8>"${lock}"
  flock -n 8 || die "another e2e cluster is running (state in $(cat "${lock}.state" 2>/dev/null || echo '?')); stop it first"
  ensure_packages
  local control_plane node_bin
  control_plane="$("${root}/hack/setup-control-plane.sh")"
  node_bin="$("${root}/hack/setup-control-plane.sh" --node)"
  build_pause_image
  [[ "${state}" == /* && "${state}" != / ]] || die "E2E_STATE_DIR must be an absolute path"
  rm -rf "${state}"
  mkdir -p "${state}/logs" "${state}/pids"
  echo "${state}" >"${lock}.state"
  write_certs
  write_configs
  save_sysctls
  trap outer_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  make_cgroups
  E2E_CONTROL_PLANE="${control_plane}" E2E_NODE_BIN="${node_bin}" E2E_STATE_DIR="${state}" \
    unshare --net --mount --pid --fork --mount-proc --propagation private --kill-child=SIGTERM \
    "${self}" __inner "$@" &
  unshare_pid=$!
  local pid=""
  for _ in $(seq 1 50); do
    pid="$(cat "/proc/${unshare_pid}/task/${unshare_pid}/children" 2>/dev/null | awk '{print $1}')"
    [[ -n "${pid}" ]] && break
    sleep 0.1
  done
  echo "${pid}" >"${state}/inner.pid"
  wait "${unshare_pid}"
}

enter() { # exec COMMAND...: join the namespaces of a running cluster
  preflight "$@"
  local pid
  pid="$(inner_pid)" && [[ -n "${pid}" ]] && kill -0 "${pid}" 2>/dev/null ||
    die "no e2e cluster is running with state in ${state}"
  exec nsenter -t "${pid}" --net --mount --pid --wd="${PWD}" -- \
    env KUBECONFIG="${state}/admin.kubeconfig" CONTAINERD_ADDRESS="${state}/containerd/containerd.sock" \
    CONTAINERD_NAMESPACE=k8s.io E2E_CLUSTER_STATE="${state}" PATH="$(cat "${state}/path")" "$@"
}

case "${1:-}" in
  run) shift; [[ "${1:-}" == -- ]] && shift; [[ $# -gt 0 ]] || usage; outer run "$@" ;;
  up) outer up ;;
  check) check ;;
  exec) shift; [[ "${1:-}" == -- ]] && shift; [[ $# -gt 0 ]] || usage; enter "$@" ;;
  __inner) shift; source "${root}/hack/e2e-cluster-inner.sh"; inner "$@" ;;
  *) usage ;;
esac

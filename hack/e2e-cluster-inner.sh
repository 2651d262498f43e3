# The part of hack/e2e-cluster.sh that runs inside the cluster's network, mount and
# PID namespaces, as PID 1 of the PID namespace: when it exits, the kernel kills
# whatever is left in the namespace (containerd's shims and the containers).
# Sourced by hack/e2e-cluster.sh, which sets state, node_ip and the other settings.

names=()
pids=()

# start NAME COMMAND...: runs COMMAND in a session of its own (a Ctrl-C reaches this
# script, which stops the components in order) with its output in logs/NAME.log.
start() {
  local name="$1"
  shift
  setsid "$@" >"${state}/logs/${name}.log" 2>&1 &
  pids+=("$!")
  names+=("${name}")
  echo "$!" >"${state}/pids/${name}"
}

# wait_for WHAT SECONDS COMMAND...: retries COMMAND until it succeeds, and fails when
# the time is up or a component has exited.
wait_for() {
  local what="$1" seconds="$2" i n
  shift 2
  for ((n = 0; n < seconds * 2; n++)); do
    "$@" >/dev/null 2>&1 && return 0
    for i in "${!pids[@]}"; do
      kill -0 "${pids[i]}" 2>/dev/null ||
        die "${names[i]} exited while waiting for ${what}; see ${state}/logs/${names[i]}.log:
$(tail -n 15 "${state}/logs/${names[i]}.log")"
    done
    sleep 0.5
  done
  die "no ${what} after ${seconds}s; logs are in ${state}/logs"
}

# stop_all stops the components in the reverse order of their start, each by PID,
# after whatever else runs in the namespace (Pods' containers and their shims), whose
# watches would hold the API server up.
stop_all() {
  local i n pid
  for pid in /proc/[0-9]*; do
    pid="${pid#/proc/}"
    [[ "${pid}" == 1 || " ${pids[*]} " == *" ${pid} "* ]] && continue
    kill -KILL "${pid}" 2>/dev/null || true
  done
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[i]}" 2>/dev/null || continue
    for ((n = 0; n < 40; n++)); do kill -0 "${pids[i]}" 2>/dev/null || break; sleep 0.25; done
    if kill -0 "${pids[i]}" 2>/dev/null; then
      log "${names[i]} did not stop within 10s; killing it"
      kill -KILL "${pids[i]}" 2>/dev/null || true
    fi
    wait "${pids[i]}" 2>/dev/null || true
  done
}

# node_report says, after a failed command, what of the node keeps Pods from running:
# Ready when not True, any other condition that is True (a pressure), the taints, and
# the cluster's last Warning events. It comes last in the output, where a reader of a
# failed run looks first.
node_report() {
  local report events
  report="$(kubectl get node "${node_name}" --request-timeout 5s -o go-template='
{{- range .status.conditions}}{{if eq .type "Ready"}}{{if ne .status "True"}}{{.type}}={{.status}}: {{.message}}
{{end}}{{else if eq .status "True"}}{{.type}}=True: {{.message}}
{{end}}{{end}}{{range .spec.taints}}taint {{.key}}:{{.effect}}
{{end}}' 2>&1)" || { log "could not read node ${node_name}: ${report}"; return 0; }
  if [[ -z "${report}" ]]; then
    log "node ${node_name}: Ready, no pressure, no taints"
  else
    log "node ${node_name}:"$'\n'"${report}"
  fi
  events="$(kubectl get events -A --field-selector type=Warning --sort-by=.lastTimestamp \
    --request-timeout 5s -o go-template='{{range .items}}{{.involvedObject.kind}}/{{.involvedObject.name}} {{.reason}}: {{.message}}
{{end}}' 2>/dev/null | tail -n 5)" || true
  [[ -z "${events}" ]] || log "the last Warning events:"$'\n'"${events}"
}

inner_stop() {
  local rc=$?
  trap '' INT TERM
  trap - EXIT
  [[ "${rc}" == 0 ]] || node_report
  log "stopping"
  stop_all
  exit "${rc}"
}

network() {
  # Own addresses, no link out: the node's address is on one end of a veth pair whose
  # other end is in the same namespace, and the default route leads nowhere.
  ip link set lo up
  ip link add e2e0 type veth peer name e2e1
  ip addr add "${node_ip}/24" dev e2e0
  ip link set e2e0 up
  ip link set e2e1 up
  ip route add default dev e2e0
}

mounts() {
  # Runtime state (shim sockets, Pod network namespaces, runc state) on a tmpfs of
  # this mount namespace; /var/log (Pod logs, /var/log/containers) in the state dir.
  mount -t tmpfs -o mode=755 tmpfs /run
  mkdir -p /run/lock
  mount --bind "${state}/log" /var/log
}

start_control_plane() {
  local pki="${state}/pki"
  start etcd etcd --data-dir "${state}/etcd" --listen-client-urls http://127.0.0.1:2379 \
    --advertise-client-urls http://127.0.0.1:2379 --listen-peer-urls http://127.0.0.1:2380 \
    --unsafe-no-fsync
  start kube-apiserver kube-apiserver --etcd-servers http://127.0.0.1:2379 \
    --bind-address "${node_ip}" --advertise-address "${node_ip}" --secure-port 6443 \
    --cert-dir "${state}/apiserver" --tls-cert-file "${pki}/apiserver.crt" --tls-private-key-file "${pki}/apiserver.key" \
    --client-ca-file "${pki}/ca.crt" --token-auth-file "${pki}/tokens.csv" --authorization-mode Node,RBAC \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "${pki}/sa.pub" --service-account-signing-key-file "${pki}/sa.key" \
    --service-cluster-ip-range "${service_cidr}" --enable-aggregator-routing=true \
    --kubelet-preferred-address-types InternalIP \
    --kubelet-client-certificate "${pki}/apiserver-kubelet-client.crt" \
    --kubelet-client-key "${pki}/apiserver-kubelet-client.key"
  wait_for "ready kube-apiserver" 90 kubectl get --raw /readyz
  start kube-controller-manager kube-controller-manager --kubeconfig "${state}/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false --use-service-account-credentials \
    --service-account-private-key-file "${pki}/sa.key" --root-ca-file "${pki}/ca.crt" \
    --service-cluster-ip-range "${service_cidr}"
  start kube-scheduler kube-scheduler --kubeconfig "${state}/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false
}

start_node() {
  start containerd containerd --config "${state}/containerd/config.toml"
  wait_for "containerd" 30 ctr version
  ctr images import "${root}/bin/e2e-images/pause.tar" >/dev/null ||
    die "could not import the pause image"
  start kubelet kubelet --config "${state}/kubelet.yaml" --kubeconfig "${state}/kubelet.kubeconfig" \
    --root-dir "${state}/kubelet" --hostname-override "${node_name}" --node-ip "${node_ip}"
  start kube-proxy kube-proxy --config "${state}/kube-proxy.yaml"
  wait_for "Ready node" 120 kubectl wait --for condition=Ready --timeout 5s "node/${node_name}"
  wait_for "default ServiceAccount" 60 kubectl get serviceaccount default
}

inner() { # run COMMAND... | up
  local mode="$1" began=${SECONDS}
  shift
  trap inner_stop EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  export PATH="${E2E_CONTROL_PLANE}:${E2E_NODE_BIN}:${PATH}"
  export KUBECONFIG="${state}/admin.kubeconfig"
  export CONTAINERD_ADDRESS="${state}/containerd/containerd.sock" CONTAINERD_NAMESPACE=k8s.io
  export E2E_CLUSTER_STATE="${state}"
  echo "${PATH}" >"${state}/path"
  network
  mounts
  start_control_plane
  start_node
  log "cluster up in $((SECONDS - began))s: node ${node_name} at ${node_ip}, state in ${state}"
  if [[ "${mode}" == up ]]; then
    log "use it with: $0 exec -- kubectl get pods -A   (Ctrl-C here stops it)"
    sleep infinity &
    wait "$!"
    return
  fi
  "$@" &
  wait "$!"
}

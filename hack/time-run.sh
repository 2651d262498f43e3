#!/usr/bin/env bash
# Measures how long `make run` takes until the operator runs (the manager's "Manager
# started"), with no cluster configured, in a fresh clone of this checkout's HEAD, as the
# docs/getting-started.md reports it:
#
#   hack/time-run.sh cold   empty Go module and build caches of its own: what a fresh
#                           machine does (every module downloaded, every binary built)
#   hack/time-run.sh warm   this machine's Go caches, and the control-plane binaries of
#                           this checkout's bin/k8s: what every later run does
#
# Each prints one line, `make run <mode>: <seconds> s until Manager started`, then stops
# the run with SIGINT, as Ctrl-C does. Everything it makes is in a temporary directory
# (TIME_RUN_DIR keeps it), removed at the end.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode="${1:-}"
[[ "${mode}" == cold || "${mode}" == warm ]] || { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

work="${TIME_RUN_DIR:-$(mktemp -d)}"
mkdir -p "${work}"
[[ -n "${TIME_RUN_DIR:-}" ]] || trap 'chmod -R u+w "${work}" 2>/dev/null; rm -rf "${work}"' EXIT
git clone -q "${root}" "${work}/repo"

env=(-u KUBEBUILDER_ASSETS KUBECONFIG="${work}/absent")
if [[ "${mode}" == cold ]]; then
  env+=(GOMODCACHE="${work}/gomod" GOCACHE="${work}/gocache" GOFLAGS="-modcacherw -buildvcs=false")
else
  version="$(sed -n 's/^KUBERNETES_VERSION="\${KUBERNETES_VERSION:-\(v[0-9.]*\)}"$/\1/p' "${root}/hack/setup-control-plane.sh")"
  mkdir -p "${work}/repo/bin/k8s"
  cp -r "${root}/bin/k8s/${version}" "${work}/repo/bin/k8s/" ||
    { echo "time-run: no ${root}/bin/k8s/${version}; run make control-plane first" >&2; exit 1; }
  # The run before this one built the manager and the plugins.
  (cd "${work}/repo" && env "${env[@]}" make -s build plugins >/dev/null)
fi

log="${work}/run.log"
start=${EPOCHREALTIME}
(cd "${work}/repo" && exec setsid env "${env[@]}" make run >"${log}" 2>&1) &
pid=$!
until grep -q 'Manager started' "${log}" 2>/dev/null; do
  if ! kill -0 "${pid}" 2>/dev/null; then
    echo "time-run: make run exited before the manager started:" >&2
    tail -n 30 "${log}" >&2
    exit 1
  fi
  sleep 0.2
done
end=${EPOCHREALTIME}
awk -v m="${mode}" -v s="${start}" -v e="${end}" 'BEGIN { printf "make run %s: %.0f s until Manager started\n", m, e - s }'
# make and what it started run in their own session: interrupt them all, as Ctrl-C
# does in a terminal, and wait until the control plane is stopped.
kill -INT -- "-${pid}"
wait "${pid}" || true
grep -q 'local control plane stopped' "${log}" || { echo "time-run: the control plane did not report stopping" >&2; tail -n 10 "${log}" >&2; }

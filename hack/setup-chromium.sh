#!/usr/bin/env bash
# Prints the path of a Chromium binary for the browser specs (test/install), installing
# Debian's chromium package when it can. Progress goes to stderr, the path to stdout.
# Order: $CHROMIUM when set; chromium or chromium-browser on PATH; as root with apt-get,
# `apt-get install -y --no-install-recommends chromium`; otherwise exit 1 saying how.
set -euo pipefail

how="install Chromium (Debian/Ubuntu: 'sudo apt-get install -y --no-install-recommends chromium'; macOS: 'brew install --cask chromium') or set CHROMIUM to the path of a Chromium or Chrome binary"

if [[ -n "${CHROMIUM:-}" ]]; then
  if [[ -x "${CHROMIUM}" ]] || command -v "${CHROMIUM}" >/dev/null 2>&1; then
    command -v "${CHROMIUM}"
    exit 0
  fi
  echo "setup-chromium: CHROMIUM=${CHROMIUM} is not an executable; ${how}" >&2
  exit 1
fi

for name in chromium chromium-browser; do
  if path="$(command -v "${name}" 2>/dev/null)"; then
    echo "${path}"
    exit 0
  fi
done

if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "setup-chromium: installing Debian's chromium package" >&2
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1; then
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends chromium >/dev/null
  fi
  if path="$(command -v chromium 2>/dev/null)"; then
    echo "${path}"
    exit 0
  fi
fi

echo "setup-chromium: no Chromium found; ${how}" >&2
exit 1

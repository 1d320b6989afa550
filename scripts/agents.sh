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

run_apart agents test/agents test/agents/agents.js "${MAJORS[@]}"

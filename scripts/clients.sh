#!/usr/bin/env bash
# The real HTTP client libraries (axios, got, node-fetch 2, http-proxy) and
# undici's fetch, each played on stock Node and with onewrite's client side
# against a recording loopback server: test/clients/clients.js (issue 41).
# The libraries are installed into test/clients from its own lockfile
# (npm ci --prefix test/clients), apart from the project's devDependencies;
# nothing leaves 127.0.0.1.
#
#   scripts/clients.sh               the machine's Node and Node 26
#   scripts/clients.sh system 22     these (system: the machine's own)
#
# Node 22/24/26 come from the npm registry into ONEWRITE_NODE_CACHE (default
# ~/.cache/onewrite/nodes), as scripts/node-matrix.sh installs them.  A few
# seconds to install, then about 5 s a Node.
set -euo pipefail
cd "$(dirname "$0")/.."

MAJORS=("$@")
if [ ${#MAJORS[@]} -eq 0 ]; then MAJORS=(system 26); fi

. scripts/node-for.sh

run_apart clients test/clients test/clients/clients.js "${MAJORS[@]}"

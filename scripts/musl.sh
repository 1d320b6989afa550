#!/usr/bin/env bash
# The musl binaries (linux-x64-musl, linux-arm64-musl), run as far as this
# machine can: there is no musl Node on the registries it reaches, so each
# is proven by what runs under musl's own dynamic loader, for each arch
# (arm64 under qemu-user):
#
#   1. scripts/binaries.sh builds it and checks that it needs musl's
#      libc.so alone, every symbol it takes from there defined by musl, and
#      no glibc symbol version;
#   2. the C core's unit tests (csrc/test/test_head.c), compiled against
#      musl and run under its loader (without sanitizers: their runtimes
#      are glibc's);
#   3. csrc/test/napi_host.c, compiled against musl: a stand-in for Node
#      that provides the Node-API functions the addon imports, loads it
#      with dlopen(RTLD_NOW) under musl's loader, runs its module init,
#      attaches the shared memory and renders heads through the addon's own
#      head(), byte for byte;
#   4. the same host built against glibc loads the glibc binary of the
#      arch, so that the host itself is shown to tell a good binary (and
#      qemu's arm64 glibc run, scripts/arm64-qemu.sh, is not the only one).
#
#   scripts/musl.sh            x64 and arm64
#   scripts/musl.sh x64        one arch
set -euo pipefail
cd "$(dirname "$0")/.."
START=$SECONDS

ARCHES=("$@")
if [ ${#ARCHES[@]} -eq 0 ]; then ARCHES=(x64 arm64); fi
scripts/toolchains.sh musl arm64
HEADERS=node_modules/node-api-headers/include
OUT=csrc/build/musl
mkdir -p "$OUT"

for arch in "${ARCHES[@]}"; do
  case "$arch" in
    x64) MUSL_CC=musl-gcc; GLIBC_CC=x86_64-linux-gnu-gcc; RUN=(); GLIBC_RUN=() ;;
    arm64) MUSL_CC=aarch64-linux-musl-gcc; GLIBC_CC=aarch64-linux-gnu-gcc
      RUN=(qemu-aarch64); GLIBC_RUN=(qemu-aarch64 -L /usr/aarch64-linux-gnu) ;;
    *) echo "musl: unknown arch '$arch' (x64, arm64)" >&2; exit 2 ;;
  esac
  echo "=== linux-$arch-musl"
  scripts/binaries.sh "linux-$arch-musl" "linux-$arch-glibc"

  # The loader each program asks for is musl's own.
  "$MUSL_CC" -std=c11 -Wall -Wextra -Wpedantic -Werror -O1 -o "$OUT/test_head-$arch" csrc/test/test_head.c csrc/head.c
  "$MUSL_CC" -std=c11 -Wall -Wextra -Wpedantic -Werror -O1 -rdynamic -I"$HEADERS" \
    -o "$OUT/napi_host-$arch" csrc/test/napi_host.c
  interp="$(readelf -l "$OUT/napi_host-$arch" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')"
  case "$interp" in
    /lib/ld-musl-*) echo "host and tests run under $interp" ;;
    *) echo "musl: the host's interpreter is $interp, not musl's" >&2; exit 1 ;;
  esac
  "${RUN[@]}" "$OUT/test_head-$arch" | tail -n 1
  "${RUN[@]}" "$OUT/napi_host-$arch" "npm/linux-$arch-musl/onewrite.node"

  echo "--- the same host, built against glibc, on linux-$arch-glibc"
  "$GLIBC_CC" -std=c11 -Wall -Wextra -Wpedantic -Werror -O1 -rdynamic -I"$HEADERS" \
    -o "$OUT/napi_host-$arch-glibc" csrc/test/napi_host.c -ldl
  "${GLIBC_RUN[@]}" "$OUT/napi_host-$arch-glibc" "npm/linux-$arch-glibc/onewrite.node" | tail -n 1
done
echo "musl: passed ($((SECONDS - START)) s)"

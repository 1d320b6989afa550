#!/usr/bin/env bash
# The prebuilt binaries `npm pack` ships (`npm run prebuild`, run by
# prepack): prebuilds/linux-x64/onewrite.node and
# prebuilds/linux-arm64/onewrite.node, Node-API 8, stripped, each made by
# prebuildify, where node-gyp-build looks for them.
#
# The machine's own architecture is built in place, as before (node-gyp
# rebuilds build/, prebuildify moves the binary from there to prebuilds/).
# The other is cross-compiled with Debian's cross gcc (aarch64-linux-gnu-gcc
# on x64, x86_64-linux-gnu-gcc on arm64) in a scratch copy of the sources,
# so that build/, which node-gyp-build prefers to prebuilds/, never holds a
# binary of the other architecture (a failed cross build would leave one);
# it is stripped with that toolchain's strip: prebuildify's default `strip`
# does not read the other architecture's ELF files and fails.
# scripts/arm64-toolchain.sh installs the arm64 cross toolchain.
#
#   scripts/prebuild.sh              both
#   scripts/prebuild.sh arm64        only these (x64, arm64)
#
# Run it through npm (`npm run prebuild -- arm64`): node-gyp takes the Node
# headers from npm's configuration (nodedir) there.
#
# Without the cross toolchain the other architecture is skipped, with a
# warning, so that a clone's `npm test` (which packs the package) works on
# a machine that has only its own compiler; `npm publish`, and
# ONEWRITE_PREBUILD_ALL=1 (CI), refuse to skip it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

ARCHES=("$@")
if [ ${#ARCHES[@]} -eq 0 ]; then ARCHES=(x64 arm64); fi
HOST="$(node -p process.arch)"
PREBUILDIFY="$ROOT/node_modules/.bin/prebuildify"
NODE_GYP="$ROOT/node_modules/.bin/node-gyp"

SCRATCH=""
trap '[ -z "$SCRATCH" ] || rm -rf "$SCRATCH"' EXIT

for arch in "${ARCHES[@]}"; do
  case "$arch" in
    x64) triplet=x86_64-linux-gnu; debian=gcc-x86-64-linux-gnu ;;
    arm64) triplet=aarch64-linux-gnu; debian="gcc-aarch64-linux-gnu libc6-dev-arm64-cross" ;;
    *) echo "prebuild: unknown architecture '$arch' (x64, arm64)" >&2; exit 2 ;;
  esac
  if [ "$arch" = "$HOST" ]; then
    rm -rf "prebuilds/linux-$arch"
    "$PREBUILDIFY" --napi --strip
  else
    if ! command -v "$triplet-gcc" >/dev/null; then
      echo "prebuild: $triplet-gcc not found: the linux-$arch binary is cross-compiled" \
        "with Debian's cross gcc (apt-get install $debian, or scripts/arm64-toolchain.sh)" >&2
      if [ "${npm_command:-}" = publish ] || [ "${ONEWRITE_PREBUILD_ALL:-}" = 1 ]; then
        exit 1
      fi
      echo "prebuild: WARNING: linux-$arch skipped; this package would ship without it" >&2
      rm -rf "prebuilds/linux-$arch"
      continue
    fi
    rm -rf "prebuilds/linux-$arch"
    SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/onewrite-prebuild-$arch.XXXXXX")"
    mkdir "$SCRATCH/csrc"
    cp package.json binding.gyp "$SCRATCH/"
    cp csrc/*.c csrc/*.h "$SCRATCH/csrc/"
    (cd "$SCRATCH" && CC="$triplet-gcc" CXX="$triplet-g++" LINK="$triplet-gcc" AR="$triplet-ar" \
      "$PREBUILDIFY" --napi --strip --arch="$arch" --strip-bin="$triplet-strip" \
        --node-gyp="$NODE_GYP" --out="$ROOT")
    rm -rf "$SCRATCH"
    SCRATCH=""
  fi
  echo "prebuild: $(ls "prebuilds/linux-$arch"/*.node)"
done

#!/usr/bin/env bash
# Debian's packages for the linux-arm64 prebuild and its tests, installed
# with apt-get when missing (nothing is done when all are there):
#
#   gcc-aarch64-linux-gnu   the cross compiler, binutils (aarch64-linux-gnu-strip)
#                           and the arm64 ASan/UBSan runtimes with it
#   libc6-dev-arm64-cross   arm64 libc headers and start files for it (only a
#                           recommendation of the compiler), and the arm64
#                           sysroot /usr/aarch64-linux-gnu that qemu runs from
#   libstdc++6-arm64-cross  the arm64 libstdc++ the arm64 Node needs
#   qemu-user               qemu-aarch64, to run arm64 programs on this machine
#
# `npm pack` needs the compiler (prepack builds both binaries, and
# test/package.js packs); scripts/arm64-qemu.sh needs all of them.
set -euo pipefail

PACKAGES=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross libstdc++6-arm64-cross qemu-user)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "arm64 toolchain: installed (${PACKAGES[*]})"
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO=(sudo); else
    echo "arm64 toolchain: missing ${missing[*]}; install them as root (apt-get install ${missing[*]})" >&2
    exit 1
  fi
fi
echo "arm64 toolchain: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

#!/usr/bin/env bash
# Debian's packages that build every platform's binary (scripts/binaries.sh)
# and run what can be run of each here, installed with apt-get when missing
# (nothing is done when all are there):
#
#   arm64    gcc-aarch64-linux-gnu, libc6-dev-arm64-cross: the linux-arm64
#            cross compiler and the arm64 glibc sysroot (/usr/aarch64-linux-gnu)
#            that qemu runs from; libstdc++6-arm64-cross, which the arm64 Node
#            needs; qemu-user, to run arm64 programs here
#   musl     musl-tools (musl-gcc, x64) with musl's loader
#            /lib/ld-musl-x86_64.so.1; musl-dev:arm64 (aarch64-linux-musl-gcc,
#            over the arm64 cross gcc) with /lib/ld-musl-aarch64.so.1, which
#            needs the arm64 architecture added to dpkg
#   windows  gcc-mingw-w64-x86-64 (the win32-x64 compiler and dlltool);
#            wine64, to run Node for Windows here
#
#   scripts/toolchains.sh              all of them
#   scripts/toolchains.sh arm64 musl   these
set -euo pipefail
# grep -q reads from a here-string, never a pipe: it stops at its first
# match, and the writer's SIGPIPE fails the whole pipe under pipefail.

GROUPS_WANTED=("$@")
if [ ${#GROUPS_WANTED[@]} -eq 0 ]; then GROUPS_WANTED=(arm64 musl windows); fi

# strace: the tests that count socket writes trace their servers with it.
PACKAGES=(strace)
FOREIGN=0
for group in "${GROUPS_WANTED[@]}"; do
  case "$group" in
    arm64) PACKAGES+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross libstdc++6-arm64-cross qemu-user) ;;
    musl) PACKAGES+=(musl-tools musl-dev:arm64 musl:arm64 gcc-aarch64-linux-gnu qemu-user); FOREIGN=1 ;;
    windows) PACKAGES+=(gcc-mingw-w64-x86-64 wine64) ;;
    *) echo "toolchains: unknown group '$group' (arm64, musl, windows)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${PACKAGES[@]}"; do
  if ! grep -q 'install ok installed' <<<"$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "toolchains: installed (${GROUPS_WANTED[*]})"
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO=(sudo); else
    echo "toolchains: missing ${missing[*]}; install them as root (apt-get install ${missing[*]})" >&2
    exit 1
  fi
fi
echo "toolchains: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if [ "$FOREIGN" = 1 ] && ! grep -qx arm64 <<<"$(dpkg --print-foreign-architectures)"; then
  "${SUDO[@]}" dpkg --add-architecture arm64
fi
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

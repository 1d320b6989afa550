#!/usr/bin/env bash
# The binaries the platform packages ship: npm/<platform>/onewrite.node,
# one Node-API 8 binary per platform that serves Node 20, 22, 24 and 26.
# Each is compiled here with Debian's compiler for its target, against the
# Node-API headers of the node-api-headers package (the same headers Node
# ships), stripped, and then checked for what its users' machines need:
#
#   linux-*-glibc   ELF of the right machine; needs libc.so.6 alone, with
#                   symbol versions no newer than GLIBC_2.17 (CentOS 7,
#                   Amazon Linux 2), the newest of them exactly the glibc
#                   scripts/glibc.json records for the platform (the one
#                   figure the platform packages' descriptions and the
#                   README give: scripts/packages.js and test/docs.js read
#                   it);
#   linux-*-musl    ELF of the right machine; needs musl's libc.so alone,
#                   every symbol it takes from it defined there, and no
#                   glibc symbol version;
#   win32-x64       a PE32+ x86-64 DLL importing KERNEL32.dll and msvcrt.dll
#                   alone (every Windows has them; no MinGW runtime DLL),
#                   its Node-API functions delay-loaded from node.exe (a
#                   delay-import library dlltool makes from node-api-headers'
#                   def file) and taken from the running program, whatever
#                   its name (csrc/win_delay_load_hook.c); linked without a
#                   timestamp, so that two builds are the same bytes.
# Every binary takes nothing from Node but the napi_* functions Node
# exports (node-api-headers' def file lists them).
#
#   scripts/binaries.sh                    all of them
#   scripts/binaries.sh linux-x64-musl ... these
#
# A platform whose compiler is missing fails the run, naming the Debian
# packages to install (scripts/toolchains.sh installs them all).
# Running them is elsewhere: the glibc ones in Node (npm test,
# scripts/arm64-qemu.sh), the musl ones under musl's loader
# (scripts/musl.sh), win32-x64 in Node for Windows under wine
# (scripts/windows.sh).
set -euo pipefail
# grep -q reads from a here-string, never a pipe: it stops at its first
# match, and the writer's SIGPIPE fails the whole pipe under pipefail.
cd "$(dirname "$0")/.."

HEADERS=node_modules/node-api-headers
if [ ! -f "$HEADERS/include/node_api.h" ]; then
  echo "binaries: $HEADERS not found: run npm install first" >&2
  exit 1
fi
DEF="$HEADERS/def/node_api.def"
CFLAGS=(-std=c11 -O3 -Wall -Wextra -Werror -DNAPI_VERSION=8 -I"$HEADERS/include")
SOURCES=(csrc/binding.c csrc/head.c)
GLIBC_MAX=2.17
GLIBC_RECORD=scripts/glibc.json
ALL=(linux-x64-glibc linux-x64-musl linux-arm64-glibc linux-arm64-musl win32-x64)

PLATFORMS=("$@")
if [ ${#PLATFORMS[@]} -eq 0 ]; then PLATFORMS=("${ALL[@]}"); fi

SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/onewrite-binaries.XXXXXX")"
trap 'rm -rf "$SCRATCH"' EXIT

fail() {
  echo "binaries: $1: $2" >&2
  exit 1
}

# The compiler for a platform, its Debian packages, and the ELF machine
# (readelf's name) or PE format (objdump's) its file must be.
setup() {
  case "$1" in
    linux-x64-glibc) CC=x86_64-linux-gnu-gcc; DEBIAN="gcc"; MACHINE="Advanced Micro Devices X86-64" ;;
    linux-arm64-glibc) CC=aarch64-linux-gnu-gcc; DEBIAN="gcc-aarch64-linux-gnu libc6-dev-arm64-cross"; MACHINE=AArch64 ;;
    linux-x64-musl) CC=x86_64-linux-musl-gcc; DEBIAN="musl-tools musl-dev"; MACHINE="Advanced Micro Devices X86-64"
      MUSL_LIBC=/usr/lib/x86_64-linux-musl/libc.so ;;
    linux-arm64-musl) CC=aarch64-linux-musl-gcc; DEBIAN="musl-dev:arm64 (dpkg --add-architecture arm64) gcc-aarch64-linux-gnu"
      MACHINE=AArch64; MUSL_LIBC=/usr/lib/aarch64-linux-musl/libc.so ;;
    win32-x64) CC=x86_64-w64-mingw32-gcc; DEBIAN="gcc-mingw-w64-x86-64"; MACHINE=pei-x86-64 ;;
    *) fail "$1" "unknown platform (${ALL[*]})" ;;
  esac
  # Debian's musl-tools calls the x64 one musl-gcc.
  if [ "$CC" = x86_64-linux-musl-gcc ] && ! command -v "$CC" >/dev/null && command -v musl-gcc >/dev/null &&
    [ "$(uname -m)" = x86_64 ]; then
    CC=musl-gcc
  fi
  command -v "$CC" >/dev/null || fail "$1" "$CC not found (apt-get install $DEBIAN, or scripts/toolchains.sh)"
}

# The napi_* functions the file takes, each one Node exports.
check_napi() {
  local platform="$1"
  shift
  local unknown
  unknown="$(printf '%s\n' "$@" | grep '^napi_\|^node_api_' | sort -u | comm -23 - <(sed -n 's/^\(napi_\|node_api_\)/&/p' "$DEF" | sort -u))"
  [ -z "$unknown" ] || fail "$platform" "imports functions Node does not export: $unknown"
}

check_elf() {
  local platform="$1" file="$2"
  local machine needed undefined
  machine="$(readelf -h "$file" | sed -n 's/^ *Machine: *//p')"
  [ "$machine" = "$MACHINE" ] || fail "$platform" "an ELF file for $machine, not $MACHINE"
  grep -q 'Type: *DYN' <<<"$(readelf -h "$file")" || fail "$platform" "not a shared object"
  needed="$(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
  # Strong undefined symbols only: a weak one (crtbegin's _ITM_* hooks)
  # may stay unresolved.
  mapfile -t undefined < <(nm -D --undefined-only "$file" | awk '$1 == "U" {print $2}' | sed 's/@.*//')
  check_napi "$platform" "${undefined[@]}"
  case "$platform" in
    *-glibc)
      [ "$needed" = "libc.so.6 " ] || fail "$platform" "needs [$needed], not libc.so.6 alone"
      local newest
      newest="$(objdump -T "$file" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)"
      [ "$(printf '%s\n%s\n' "$newest" "$GLIBC_MAX" | sort -V | tail -n 1)" = "$GLIBC_MAX" ] ||
        fail "$platform" "needs glibc $newest, newer than $GLIBC_MAX"
      local recorded
      recorded="$(node -p "require('./$GLIBC_RECORD')['$platform'] || 'nothing'")"
      [ "$newest" = "$recorded" ] ||
        fail "$platform" "needs glibc $newest, where $GLIBC_RECORD says $recorded: write $newest there, then run node scripts/packages.js sync (the platform packages' descriptions) and change the README's and docs/platforms.md's figure (npx tap test/docs.js checks them)"
      echo "binaries: $platform: $machine, needs libc.so.6 (glibc >= $newest)"
      ;;
    *-musl)
      [ "$needed" = "libc.so " ] || fail "$platform" "needs [$needed], not musl's libc.so alone"
      if grep -q GLIBC_ <<<"$(objdump -T "$file")"; then fail "$platform" "has glibc symbol versions"; fi
      local from_libc missing
      from_libc="$(printf '%s\n' "${undefined[@]}" | grep -v '^napi_\|^node_api_' | sort -u)"
      missing="$(comm -23 <(echo "$from_libc") <(nm -D --defined-only "$MUSL_LIBC" | awk '{print $NF}' | sort -u))"
      [ -z "$missing" ] || fail "$platform" "takes symbols musl does not define: $missing"
      echo "binaries: $platform: $machine, needs musl's libc.so for $(echo "$from_libc" | tr '\n' ' ')"
      ;;
  esac
}

check_pe() {
  local platform="$1" file="$2"
  local format dlls imports
  format="$(x86_64-w64-mingw32-objdump -f "$file" | sed -n 's/.*file format //p')"
  [ "$format" = "$MACHINE" ] || fail "$platform" "file format $format, not $MACHINE"
  grep -q 'Magic.*PE32+' <<<"$(x86_64-w64-mingw32-objdump -p "$file")" || fail "$platform" "not PE32+"
  dlls="$(x86_64-w64-mingw32-objdump -p "$file" | sed -n 's/.*DLL Name: //p' | sort | tr '\n' ' ')"
  [ "$dlls" = "KERNEL32.dll msvcrt.dll " ] || fail "$platform" "imports [$dlls], not KERNEL32.dll and msvcrt.dll alone"
  # The delay-loaded names are strings in the file, beside "node.exe".
  grep -qx node.exe <<<"$(strings "$file")" || fail "$platform" "no delay-loaded node.exe"
  # (less the two it exports itself: its module init and its API version).
  mapfile -t imports < <(strings "$file" | grep -E '^(napi|node_api)_' |
    grep -vx -e napi_register_module_v1 -e node_api_module_get_api_version_v1 | sort -u)
  [ ${#imports[@]} -gt 0 ] || fail "$platform" "takes nothing from node.exe"
  check_napi "$platform" "${imports[@]}"
  echo "binaries: $platform: PE32+ x86-64 DLL, KERNEL32.dll and msvcrt.dll, ${#imports[@]} functions delay-loaded from the running node.exe"
}

for platform in "${PLATFORMS[@]}"; do
  setup "$platform"
  [ -f "npm/$platform/package.json" ] || fail "$platform" "npm/$platform/package.json not found"
  out="npm/$platform/onewrite.node"
  tmp="$SCRATCH/$platform.node"
  case "$platform" in
    linux-*)
      "$CC" "${CFLAGS[@]}" -fPIC -fvisibility=hidden -shared -s -o "$tmp" "${SOURCES[@]}"
      check_elf "$platform" "$tmp"
      ;;
    win32-*)
      # Node-API functions are node.exe's exports, delay-loaded (-y).
      x86_64-w64-mingw32-dlltool -d "$DEF" -D node.exe -y "$SCRATCH/libnode-delay.a"
      "$CC" "${CFLAGS[@]}" -shared -s -Wl,--no-insert-timestamp,--disable-auto-image-base -o "$tmp" \
        "${SOURCES[@]}" csrc/win_delay_load_hook.c -L"$SCRATCH" -lnode-delay
      check_pe "$platform" "$tmp"
      ;;
  esac
  mv "$tmp" "$out"
done

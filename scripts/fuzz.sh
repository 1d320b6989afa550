#!/usr/bin/env bash
# CI: fuzz the C core (csrc/fuzz/) for FUZZ_SECONDS seconds (default 60).
# Needs clang with libFuzzer; without clang this is a no-op that succeeds.
# A finding (crash, sanitizer report, head.c / reference mismatch) fails
# the script; the input is saved under csrc/build/fuzz-artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v "${CLANG:-clang}" >/dev/null 2>&1; then
  echo "clang not found: fuzzing skipped"
  exit 0
fi
exec make -C csrc fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-60}"

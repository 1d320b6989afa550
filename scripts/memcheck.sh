#!/usr/bin/env bash
# The native addon under valgrind memcheck, through a run of the tests:
# invalid reads or writes, uses of uninitialised memory, and leaks whose
# allocation stack goes through the addon fail the run.
#
#   scripts/memcheck.sh            (about 10 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind not found: apt-get install valgrind"; exit 1; }

# Fewer cases, and patient clients: everything runs ~50x slower here.
export ONEWRITE_CASES=300 ONEWRITE_CACHE_REQUESTS=300 ONEWRITE_TIMEOUT_MS=120000
status=0
for t in build-head writes events head-cache differential errors; do
  log="$(mktemp)"
  echo "=== test/$t.js under memcheck"
  if ! valgrind --tool=memcheck --error-exitcode=99 --leak-check=full \
      --suppressions=scripts/memcheck.supp \
      --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite \
      --num-callers=40 node "test/$t.js" > "$log.out" 2> "$log"; then
    echo "memcheck reported errors or the test failed:"; tail -40 "$log"; tail -5 "$log.out"; status=1
  fi
  grep -E "ERROR SUMMARY|definitely lost|indirectly lost" "$log" | sed 's/^==[0-9]*== /  /'
  # Any loss record or error whose stack passes through the addon.
  if grep -q "onewrite.node" "$log"; then
    echo "  frames in onewrite.node appear in the report:"; grep -B5 -A20 "onewrite.node" "$log" | head -60; status=1
  fi
  grep -E "^# \{" "$log.out" | sed 's/^/  /'
  rm -f "$log" "$log.out"
done
exit $status

#!/usr/bin/env bash
# The native addon under valgrind memcheck, through a run of the tests:
# invalid reads or writes, uses of uninitialised memory, and leaks whose
# allocation stack goes through the addon fail the run.
#
#   scripts/memcheck.sh            (about 10 minutes on 2 cores)
#   scripts/memcheck.sh glue test/contract-heads.js ...   (those test files only)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind not found: apt-get install valgrind"; exit 1; }

# Fewer cases, and patient clients: everything runs ~50x slower here.
# Each can be set from outside: a file that still times out needs a higher
# ONEWRITE_TIMEOUT_MS (the test clients' wait) or TAP_TIMEOUT (tap's limit
# for a whole file, in seconds, 0 = none; tap's own default of 30 s stops
# test/contract-wrappers.js halfway under valgrind).  MEMCHECK_LOGS=<dir> keeps
# valgrind's report and the test's output of each file there.
export ONEWRITE_CASES=${ONEWRITE_CASES:-300} ONEWRITE_CACHE_REQUESTS=${ONEWRITE_CACHE_REQUESTS:-300}
export ONEWRITE_TIMEOUT_MS=${ONEWRITE_TIMEOUT_MS:-120000} TAP_TIMEOUT=${TAP_TIMEOUT:-600}
LOGS=${MEMCHECK_LOGS:-}
[ -z "$LOGS" ] || mkdir -p "$LOGS"
status=0
tests=(build-head writes events head-cache differential errors)
[ "$#" -gt 0 ] && tests=("$@")
for t in "${tests[@]}"; do
  t=$(basename "$t" .js)
  log="$(mktemp)"
  echo "=== test/$t.js under memcheck"
  if ! valgrind --tool=memcheck --error-exitcode=99 --leak-check=full \
      --suppressions=scripts/memcheck.supp \
      --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite \
      --num-callers=40 node "test/$t.js" > "$log.out" 2> "$log"; then
    echo "memcheck reported errors or the test failed:"; tail -40 "$log"; tail -5 "$log.out"; status=1
  fi
  # (|| true: under set -e, a report or an output without the line, as
  # when the test crashed, must not end the run before the next file)
  grep -E "ERROR SUMMARY|definitely lost|indirectly lost" "$log" | sed 's/^==[0-9]*== /  /' || true
  # Any loss record or error whose stack passes through the addon.
  if grep -q "onewrite.node" "$log"; then
    echo "  frames in onewrite.node appear in the report:"; { grep -B5 -A20 "onewrite.node" "$log" | head -60 || true; }; status=1
  fi
  grep -E "^# \{" "$log.out" | sed 's/^/  /' || true
  if [ -n "$LOGS" ]; then mv "$log" "$LOGS/$t.valgrind.log"; mv "$log.out" "$LOGS/$t.out"
  else rm -f "$log" "$log.out"; fi
done
exit $status

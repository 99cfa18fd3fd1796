#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the fuzz harnesses (docs/fuzzing.md) of the fuzz build BUILD, each for
# SECONDS seconds (default 5), from the seed corpora fuzz-seeds makes of the
# fixtures and the regression inputs under tests/fuzz/regressions.  The
# first crash, sanitizer report, timeout or memory blow-up fails the run;
# libFuzzer keeps its input as BUILD/fuzz-artifacts/<harness>-*.
# Usage: packaging/fuzz.sh BUILD [SECONDS [HARNESS...]]
set -eu
cd "$(dirname "$0")/.."
build=$1
secs=${2:-5}
shift
[ $# -gt 0 ] && shift
harnesses=${*:-"dates protocol ids mcp markdown http adapter-claude-code adapter-codex adapter-cursor adapter-zcode adapter-grok"}
# RapidJSON 1.1's one report under clang is suppressed (the file says why).
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}:suppressions=$PWD/tests/fuzz/ubsan.supp"
work=$(mktemp -d "${TMPDIR:-/tmp}/origin-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
"$build/tests/fuzz/fuzz-seeds" "$work"
mkdir -p "$build/fuzz-artifacts"
for h in $harnesses; do
  echo "fuzz-$h: $secs s" >&2
  # JSON's tokens help the harnesses whose input is JSON; HTTP's the http harness.
  case $h in dates | ids | markdown) dict="" ;; http) dict="-dict=tests/fuzz/http.dict" ;; *) dict="-dict=tests/fuzz/json.dict" ;; esac
  "$build/tests/fuzz/fuzz-$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -max_len=4096 $dict -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$h-" \
    "$work/$h" "tests/fuzz/regressions/$h" 2>"$work/$h.log" || {
    tail -n 60 "$work/$h.log" >&2
    exit 1
  }
  grep -E '^stat::number_of_executed_units|^#[0-9]+.DONE' "$work/$h.log" | tr '\n' ' ' >&2
  echo >&2
done

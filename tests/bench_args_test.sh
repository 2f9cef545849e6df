#!/usr/bin/env bash
# bench_args_test.sh BENCH TYPO BAD...: a benchmark's command line (bench_args.hpp) prints its
# help with exit 0, refuses the misspelt option TYPO with exit 2 and the nearest option named,
# and refuses the bad value BAD... (one option and its value) with exit 2 and the option named,
# before it runs anything.
set -euo pipefail
bench="$1"
typo="$2"
shift 2
name="$(basename "$bench")"
fail() { echo "$name: $*" >&2; exit 1; }

help="$("$bench" --help)" || fail "--help exited $?"
grep -q "^usage: " <<<"$help" || fail "--help printed no usage line"
grep -q -- "--help" <<<"$help" || fail "--help does not list itself"

set +e
out="$(timeout 20 "$bench" "$typo" 1 2>&1)"; rc=$?
set -e
[ "$rc" = 2 ] || fail "'$typo' exited $rc, not 2: $out"
grep -q "did you mean" <<<"$out" || fail "'$typo' named no nearest option: $out"

set +e
out="$(timeout 20 "$bench" "$@" 2>&1)"; rc=$?
set -e
[ "$rc" = 2 ] || fail "'$*' exited $rc, not 2: $out"
grep -q -- "$1" <<<"$out" || fail "the error for '$*' does not name $1: $out"
echo "$name: help, typo and bad value handled"

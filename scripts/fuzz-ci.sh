#!/usr/bin/env bash
# CI fuzz stage (issue 15): builds the cargo-fuzz targets in fuzz/, seeds
# their corpora and runs each for a short while; fails on any crash, panic,
# timeout or out-of-memory. Long runs are by hand (fuzz/README.md).
#   FUZZ_SECONDS   seconds per verifier or object target (default 60; ISA targets half)
#   FUZZ_TOOLCHAIN nightly|stable (default: nightly when installed, else
#                  stable with RUSTC_BOOTSTRAP=1, which cargo-fuzz needs for -Z)
#   FUZZ_TARGET_DIR a fresh target dir (to measure a cold build)
set -euo pipefail
cd "$(dirname "$0")/.."
T0=$SECONDS
secs=${FUZZ_SECONDS:-60}

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi
tc=${FUZZ_TOOLCHAIN:-}
if [ -z "$tc" ]; then
  if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then tc=nightly; else tc=stable; fi
fi
if [ "$tc" = nightly ]; then
  fuzz() { cargo +nightly fuzz "$@"; }
else
  fuzz() { RUSTC_BOOTSTRAP=1 cargo fuzz "$@"; }
fi
echo "fuzz: cargo-fuzz $(cargo fuzz --version | cut -d' ' -f2) on $tc"

# -s none: safe Rust gains little from ASan and the build is much faster;
# -a: debug assertions and overflow checks, as `cargo test` builds have them;
# 16 codegen units: a cold build in a few minutes on two cores
opts=(-s none -a --codegen-units 16)
[ -n "${FUZZ_TARGET_DIR:-}" ] && opts+=(--target-dir "$FUZZ_TARGET_DIR")
cd fuzz
sh seed.sh
fuzz build "${opts[@]}"
echo "fuzz: built in $((SECONDS - T0)) s"

# libFuzzer's limits: -timeout per input (wall clock, generous: the box
# is shared; the model's worst case, 1M processed insns, takes ~3 s CPU),
# -rss_limit_mb for memory. A run stops at the first finding, exit != 0.
run() {
  local t=$1 s=$2
  mkdir -p "corpus/$t" "artifacts/$t"
  fuzz run "${opts[@]}" "$t" "corpus/$t" -- -max_total_time="$s" -timeout=60 -rss_limit_mb=4096 \
    -print_final_stats=1 >"artifacts/$t.log" 2>&1 && rc=0 || rc=$?
  local execs
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "artifacts/$t.log")
  echo "fuzz: $t: ${execs:-?} executions in ${s} s, exit $rc"
  if [ "$rc" != 0 ]; then
    grep -E -A25 'panicked|ERROR: libFuzzer|SUMMARY|Failing input' "artifacts/$t.log" | head -60
  fi
  return "$rc"
}
# two at a time (two cores); each pair waits for both and keeps their status
pair() {
  run "$1" "$2" & local a=$!
  run "$3" "$4" & local b=$!
  local ra=0 rb=0
  wait "$a" || ra=$?
  wait "$b" || rb=$?
  return $((ra | rb))
}
fail=0
pair verify_raw "$secs" verify_structured "$secs" || fail=1
pair check_asm "$secs" object_open "$secs" || fail=1
pair exec_native "$secs" assemble "$((secs / 2))" || fail=1
run disasm "$((secs / 2))" || fail=1
echo "fuzz: stage took $((SECONDS - T0)) s"
exit "$fail"

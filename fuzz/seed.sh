#!/bin/sh
# Seeds the fuzz corpora from the ISA goldens, then e.g.:
#   cargo +nightly fuzz run assemble corpus/assemble -- -max_total_time=300
#   cargo +nightly fuzz run disasm corpus/disasm -- -max_total_time=300
set -eu
cd "$(dirname "$0")"
mkdir -p corpus/assemble corpus/disasm
grep -v '^#' ../expected/isa/llvm-mc-19.txt | cut -f1 | split -l 20 - corpus/assemble/seed-
grep -v '^#' ../expected/isa/llvm-mc-19.txt | cut -f2 | tr -d '\n' | xxd -r -p > corpus/disasm/seed-all

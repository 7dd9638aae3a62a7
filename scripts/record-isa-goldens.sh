#!/bin/sh
# Records expected/isa/llvm-mc-19.txt: each line of expected/isa/corpus.s with
# the bytes llvm-mc-19 encodes it to ("asm<TAB>hex", hex in memory order).
# The golden comes from LLVM, never from our assembler.
set -eu
cd "$(dirname "$0")/.."
command -v llvm-mc-19 >/dev/null || { echo "llvm-mc-19 is not installed (apt-get install llvm-19)" >&2; exit 1; }
grep -v '^#' expected/isa/corpus.s > /tmp/isa-corpus.$$.s
llvm-mc-19 -triple bpfel -mcpu=v4 -show-encoding /tmp/isa-corpus.$$.s |
  sed -n 's/.*# encoding: \[\(.*\)\]/\1/p' | sed 's/0x//g; s/,//g' > /tmp/isa-enc.$$
[ "$(wc -l < /tmp/isa-enc.$$)" = "$(wc -l < /tmp/isa-corpus.$$.s)" ] || { echo "llvm-mc-19 did not encode every line" >&2; exit 1; }
{
  echo "# Encodings of expected/isa/corpus.s by $(llvm-mc-19 --version | sed -n 's/.*LLVM version \(.*\)/LLVM \1/p') (-triple bpfel -mcpu=v4)."
  paste /tmp/isa-corpus.$$.s /tmp/isa-enc.$$
} > expected/isa/llvm-mc-19.txt
rm -f /tmp/isa-corpus.$$.s /tmp/isa-enc.$$
echo "wrote expected/isa/llvm-mc-19.txt ($(grep -vc '^#' expected/isa/llvm-mc-19.txt) forms)"

#!/bin/sh
# Seeds the fuzz corpora (idempotent), then e.g.:
#   cargo +nightly fuzz run verify_raw corpus/verify_raw -- -max_total_time=300
# assemble/disasm: the ISA goldens' lines and bytes; verify_raw: each
# golden's xlated program (maps renumbered to the targets' fds 4 and 5)
# behind four config bytes; check_asm: the ISA lines plus the annotated
# programs' asm bodies; verify_structured: a few byte strings. assemble and
# check_asm also get recipes for large and deeply nested texts
# (fuzz_targets/asm_gen.rs): the inputs that once crashed the assembler.
# object_open: the objects clang-19 makes of object_seeds/*.c (none without
# clang-19).
set -eu
cd "$(dirname "$0")"
mkdir -p corpus/assemble corpus/disasm corpus/verify_raw corpus/check_asm corpus/verify_structured corpus/object_open
grep -v '^#' ../expected/isa/llvm-mc-19.txt | cut -f1 | split -l 20 - corpus/assemble/seed-
grep -v '^#' ../expected/isa/llvm-mc-19.txt | cut -f2 | tr -d '\n' | xxd -r -p > corpus/disasm/seed-all
python3 - <<'PY'
import glob, os, re, struct
goldens = sorted(glob.glob("../expected/linux-7.3/*/*/*.txt"))
for n, path in enumerate(goldens):
    text = open(path).read()
    m = re.search(r"^== xlated_hex\n(.*?)(?=^== |\Z)", text, re.S | re.M)
    if not m:
        continue
    raw = bytearray(bytes.fromhex("".join(m.group(1).split())))
    for i in range(0, len(raw) - 15, 8):
        # ld_imm64 of map index k -> the target's map fd 4 + k
        if raw[i] == 0x18 and (raw[i + 1] >> 4) in (1, 2):
            k = struct.unpack_from("<i", raw, i + 4)[0]
            struct.pack_into("<i", raw, i + 4, 4 + (k & 1))
    arch = 1 if "/arm64/" in path else 0
    cfg = bytes([n % 12, 0x01 if n % 3 else 0x02, 0x84 if n % 5 == 0 else 0, arch])
    name = path.split("linux-7.3/")[1].replace("/", "_")[:-4]
    open(f"corpus/verify_raw/seed-{name}", "wb").write(cfg + bytes(raw))
PY
for f in ../progs/*.rs; do
  # the bodies of bpf_asm!("...") as plain asm, behind a privileged raw_tp config
  awk '/bpf_asm!\(/{on=1; next} on && /^ *"?\)?,? *$/{on=0} on' "$f" | tr -d '"' | sed 's/\\$//' \
    | awk -v d=corpus/check_asm -v b="$(basename "$f" .rs)" 'BEGIN{n=0} /^ *$/{next} {print > (d "/seed-" b "-" int(NR/40))}'
done
for f in corpus/check_asm/seed-*; do printf '\007\001\000\000' | cat - "$f" > "$f.tmp" && mv "$f.tmp" "$f"; done
cp corpus/assemble/seed-* corpus/check_asm/ 2>/dev/null || true
for i in 0 1 2 3 4 5 6 7; do head -c $((64 * (i + 1))) /dev/zero | tr '\0' "\\$((i + 1))" > corpus/verify_structured/seed-$i; done
mkdir -p corpus/exec_native
cp corpus/verify_structured/seed-* corpus/exec_native/
# after the copies above: check_asm's recipes behind their config bytes
python3 - <<'PY'
import struct
def recipe(n, prefix=b"", open_=b"", middle=b"", close=b"", suffix=b""):
    # PREFIX + OPEN * n + MIDDLE + CLOSE * n + SUFFIX (asm_gen.rs)
    assert n % 16 == 0 and n // 16 < 65536
    return b"\xfe" + struct.pack("<H", n // 16) + b"\0".join([prefix, open_, middle, close, suffix])
seeds = {
    "deep-parens": recipe(40000, b"r0 = 1 + ", b"(", b"1", b")", b"\nexit\n"),
    "deep-data": recipe(100000, b".8byte ", b"(", b"1", b")", b"\n"),
    "deep-offset": recipe(100000, b"*(u64 *)(r10 - ", b"(", b"8", b")", b") = 0\nexit\n"),
    "deep-minus": recipe(100000, b"r0 = ", b"-", b"1", b"", b"\nexit\n"),
    "deep-rept": recipe(10000, b"", b".rept 1\n", b"exit\n", b".endr\n"),
    "big-valid": recipe(80000, b"", b"r1 = *(u64 *)(r10 - 8) /* a comment to make the line longer */\n", b"r0 = 0\nexit\n"),
    "big-over-limit": recipe(1000016, b"r0 = 0\n", b"exit\n"),
    "big-error-on-line-1": recipe(1000000, b"r0 = = 1\n", b"r0 = 1\n", b"exit\n"),
    "numeric-labels": recipe(200000, b"", b"1: goto 1b\n", b"exit\n"),
    "huge-token": recipe(65536, b"r0 = 1\n", b"z", b" = 1\nexit\n"),
    "not-utf8-in-comments": b"r0 = 1 # caf\xe9\n// \xff\xfe\nr0 = 2 /* \xe9\n */\nexit\n",
    "not-utf8-in-code": b"r0 = 1\nr0 \xe9= 2\nexit\n",
    "rept-total": b".rept 1048576\n.rept 1048576\n.endr\n.endr\nexit\n",
}
for name, data in seeds.items():
    open(f"corpus/assemble/seed-gen-{name}", "wb").write(data)
    open(f"corpus/check_asm/seed-gen-{name}", "wb").write(b"\x07\x01\x00\x00" + data)
PY
if command -v "${BPF_SELFTEST_CLANG:-clang-19}" >/dev/null 2>&1; then
  for c in object_seeds/*.c; do
    "${BPF_SELFTEST_CLANG:-clang-19}" -g -O2 --target=bpfel -mcpu=v3 -c "$c" -o "corpus/object_open/seed-$(basename "$c" .c).bpf.o"
  done
fi

#!/bin/sh
# Seeds the fuzz corpora (idempotent), then e.g.:
#   cargo +nightly fuzz run verify_raw corpus/verify_raw -- -max_total_time=300
# assemble/disasm: the ISA goldens' lines and bytes; verify_raw: each
# golden's xlated program (maps renumbered to the targets' fds 4 and 5)
# behind four config bytes; check_asm: the ISA lines plus the annotated
# programs' asm bodies; verify_structured: a few byte strings.
set -eu
cd "$(dirname "$0")"
mkdir -p corpus/assemble corpus/disasm corpus/verify_raw corpus/check_asm corpus/verify_structured
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

#!/usr/bin/env python3
"""Writes expected/isa/corpus.s: one line per instruction form of the BPF ISA in
the LLVM syntax (every class, op, size, mode and source; register and immediate
edge values). `bpf-selftest record --set isa` turns it into the llvm-mc-19 goldens."""
import os

regs64 = [("r0", "r1"), ("r9", "r10"), ("r5", "r3")]
regs32 = [("w0", "w1"), ("w9", "w10"), ("w5", "w3")]
imms = ["0", "1", "-1", "2147483647", "-2147483648", "0xffffffff", "0x7f"]
alu_ops = ["+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "<<=", ">>=", "s>>=", "s/=", "s%="]
out = []
for regs in (regs64, regs32):
    for op in alu_ops:
        for d, s in regs:
            out.append(f"{d} {op} {s}")
        for imm in imms:
            out.append(f"{regs[0][0]} {op} {imm}")
    for d, s in regs:
        out.append(f"{d} = {s}")
        out.append(f"{d} = -{d}")
    for imm in imms:
        out.append(f"{regs[0][0]} = {imm}")
for d, s in regs64:
    for w in ("s8", "s16", "s32"):
        out.append(f"{d} = ({w}){s}")
for d, s in regs32:
    for w in ("s8", "s16"):
        out.append(f"{d} = ({w}){s}")
for kind in ("le", "be", "bswap"):
    for bits in (16, 32, 64):
        out.append(f"r3 = {kind}{bits} r3")
for v in ("0", "-1", "0x123456789abcdef0", "0xffffffff", "0x100000000", "-9223372036854775808"):
    out.append(f"r1 = {v} ll")
offs = ["+ 0", "- 8", "+ 32767", "- 32768", "+ 16"]
for sz in ("u8", "u16", "u32", "u64"):
    for o in offs:
        out.append(f"r2 = *({sz} *)(r1 {o})")
        out.append(f"*({sz} *)(r10 {o}) = r3")
    out.append(f"*({sz} *)(r10 - 8) = 7")
    out.append(f"*({sz} *)(r1 + 4) = -1")
    out.append(f"*({sz} *)(r1 + 4) = 2147483647")
for sz in ("u8", "u16", "u32"):
    out.append(f"w2 = *({sz} *)(r1 + 2)")
    out.append(f"*({sz} *)(r1 + 2) = w2")
for sz in ("s8", "s16", "s32"):
    for o in offs[:3]:
        out.append(f"r2 = *({sz} *)(r1 {o})")
for op in ("+=", "&=", "|=", "^="):
    out.append(f"lock *(u64 *)(r10 - 8) {op} r1")
    out.append(f"lock *(u32 *)(r2 + 4) {op} w3")
for f in ("add", "and", "or", "xor"):
    out.append(f"r1 = atomic_fetch_{f}((u64 *)(r10 - 8), r1)")
    out.append(f"w3 = atomic_fetch_{f}((u32 *)(r2 + 4), w3)")
out += ["r1 = xchg_64(r10 - 8, r1)", "w3 = xchg32_32(r2 + 4, w3)",
        "r0 = cmpxchg_64(r10 - 8, r0, r1)", "w0 = cmpxchg32_32(r2 + 4, w0, w3)"]
for sz in ("u8", "u16", "u32"):
    out.append(f"r0 = *({sz} *)skb[12]")
    out.append(f"r0 = *({sz} *)skb[r6]")
jops = ["==", "!=", ">", ">=", "<", "<=", "&", "s>", "s>=", "s<", "s<="]
for op in jops:
    out.append(f"if r1 {op} r2 goto +1")
    out.append(f"if r1 {op} 7 goto -3")
    out.append(f"if r9 {op} -1 goto +32767")
    out.append(f"if w1 {op} w2 goto -32768")
    out.append(f"if w1 {op} 0xffffffff goto +0")
out += ["goto +0", "goto -1", "goto +32767", "gotol +3", "gotol -32768",
        "may_goto +2", "call 1", "call 212", "call -1", "callx r3", "exit",
        "r1 = addr_space_cast(r2, 0, 1)", "r3 = addr_space_cast(r3, 1, 0)"]
# constant expressions, C integer suffixes, data directives, r11 (BPF_REG_PARAMS)
out += ["r0 = 2 + 3 * 4", "r0 = 1 << 3 | 1", "r0 = 1 + 2 | 4", "r0 = 1 == 1", "r0 = 7 / 2 - 1",
        "r0 = -7 % 2", "if w1 & 1 != 1 goto +0", "r1 = 0xffffffff00000000LL ll", "r0 = 0x1ffffffff",
        "r0 = 18446744073709551614", "r0 = 1 && 2", "r0 = 5 > 3 || 0", "r0 = 100 >> 2 ^ 1",
        "r11 = 1", "*(u64 *)(r11 - 8) = r1"]
os.makedirs("expected/isa", exist_ok=True)
with open("expected/isa/corpus.s", "w") as f:
    f.write("# Every instruction form, one per line (scripts/gen-isa-corpus.py).\n")
    f.write("\n".join(out) + "\n")
print(len(out), "lines")

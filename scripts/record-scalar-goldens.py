#!/usr/bin/env python3
"""Records how a real Linux 7.3 verifier tracks scalars, for tests/verifier_scalar.rs.

Generates several hundred small socket_filter programs that exercise every
ALU/ALU64 op (both widths, K and X sources), MOV/MOVSX, NEG, END and every
conditional jump (JMP and JMP32, K and X, taken/not taken/both) on operands
of many shapes (constants at the edges, unknown, masked, shifted, sign
extended, wrapping ranges, ranges narrowed by branches), loads them into a 7.3
kernel booted under QEMU with the oracle kit in ../shared/oracle (a reference
instrument: this script only runs it), and writes the level-2 verifier log of
each to expected/linux-7.3/scalar/<group>.txt:

    === <name>
    asm: <the program, one line>
    result: accepted verified_insns=<n>
    <the main pass of the log: insn lines with the registers they changed,
     "from A to B:" states; mark_precise lines dropped>

The programs keep the printed values the domain's own: operands come from
bpf_get_prandom_u32 or are constants hidden from 7.3's constant-branch folding
(`rX = 5; rX ^= 0`), and every branch target reads the registers of interest,
so liveness does not hide them. Programs are trees (no joins), so no state is
ever pruned.

  scripts/record-scalar-goldens.py [--arch x86_64] [--only GROUP] [--dry-run] [--out DIR]

The domain has nothing arch-specific: recording with --arch arm64 into another
--out directory gives the same logs apart from the header line.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE = os.environ.get("BPF_ORACLE_DIR", os.path.join(ROOT, "..", "shared", "oracle"))
OUT = os.path.join(ROOT, "expected", "linux-7.3", "scalar")

CALL = "call bpf_get_prandom_u32"

# Operand shapes: instructions that leave a value of that shape in register R,
# given a fresh unknown r0. Branch-narrowed shapes jump to a label EXIT the
# program builder provides.
SHAPES = {
    "unk": ["R = r0"],
    "u8": ["R = r0", "R &= 0xff"],
    "u16": ["R = r0", "R &= 0xffff"],
    "r10_25": ["R = r0", "R &= 0xf", "R += 10"],
    "s8_7": ["R = r0", "R &= 0xf", "R -= 8"],
    "neg": ["R = r0", "R &= 0xff", "R -= 300"],
    "u32": ["wR = w0"],
    "s32": ["R = r0", "R <<= 32", "R s>>= 32"],
    "hi": ["R = r0", "R |= -2147483648"],
    "even": ["R = r0", "R &= 0xfe"],
    "bits": ["R = r0", "R &= 0xf0", "R |= 3"],
    "big": ["R = r0", "R &= 0x7fffffff", "R += 0x7fffffff"],
    "wrap32": ["R = r0", "R &= 0xf", "wR += -8"],
    "half": ["R = r0", "R >>= 1"],
    "arsh": ["R = r0", "R s>>= 60"],
    "br_u": ["R = r0", "if R > 1000 goto EXIT"],
    "br_s": ["R = r0", "if R s> 100 goto EXIT", "if R s< -100 goto EXIT2"],
    "br_w": ["R = r0", "if wR > 70000 goto EXIT"],
    "c0": ["R = 0", "R ^= 0"],
    "c1": ["R = 1", "R ^= 0"],
    "c3": ["R = 3", "R ^= 0"],
    "c5": ["R = 5", "R ^= 0"],
    "c31": ["R = 31", "R ^= 0"],
    "c63": ["R = 63", "R ^= 0"],
    "cm1": ["R = -1", "R ^= 0"],
    "cm7": ["R = -7", "R ^= 0"],
    "cbig": ["R = 0x123456789 ll", "R ^= 0"],
    "cmin": ["R = 0x8000000000000000 ll", "R ^= 0"],
    "cmax": ["R = 0x7fffffffffffffff ll", "R ^= 0"],
    "cs32min": ["R = -2147483648", "R ^= 0"],
    "cu32max": ["R = 0xffffffff ll", "R ^= 0"],
    "m1_0": ["R = r0", "R &= 1", "R = -R"],
    "sparse": ["R = r0", "R &= 0x11"],
    "sparse2": ["R = r0", "R &= 0x10"],
    "smax_plus": ["R = 0x7fffffffffffffff ll", "R += r0"],
    "smax32_plus": ["wR = 0x7fffffff", "wR += w0"],
    "u8p1": ["R = r0", "R &= 0xff", "R += 1"],
}

DST_SHAPES = ["unk", "u8", "u16", "r10_25", "s8_7", "neg", "u32", "s32", "hi", "even", "bits",
              "big", "wrap32", "half", "arsh", "br_u", "br_s", "br_w", "c5", "cm7", "cbig", "cmin",
              "cs32min", "m1_0"]


def shape(name, reg, labels):
    r = str(reg)
    out = []
    for ins in SHAPES[name]:
        for tag in ("EXIT2", "EXIT"):
            ins = ins.replace(tag, labels.get(tag, ""))
        ins = ins.replace("wR", "w" + r).replace("R", "r" + r)
        out.append(ins)
    return out


class Prog:
    """A tree-shaped program: a main line and exit blocks for branch targets."""

    def __init__(self):
        self.main = []
        self.blocks = []
        self.n = 0

    def label(self, body):
        self.n += 1
        name = f"l{self.n}"
        self.blocks.append((name, body))
        return name

    def exit_label(self):
        return self.label(["r0 = 0", "exit"])

    def load(self, reg, shape_name):
        """A fresh unknown from the helper, shaped into `reg` (r6..r9)."""
        self.main.append(CALL)
        # One exit block per branch: the program stays a tree.
        labs = {}
        for ins in SHAPES[shape_name]:
            for tag in ("EXIT2", "EXIT"):
                if tag in ins and tag not in labs:
                    labs[tag] = self.exit_label()
        self.main += shape(shape_name, reg, labs)

    def text(self):
        lines = self.main + ["r0 = 0", "exit"]
        for name, body in self.blocks:
            lines.append(f"{name}:")
            lines += body
        out = []
        for l in lines:
            if l.endswith(":"):
                out.append(l)
            else:
                out.append(l + ";")
        return " ".join(out)


ALU_OPS = {
    # name: (64-bit syntax, 32-bit syntax)
    "add": ("+=", "+="), "sub": ("-=", "-="), "mul": ("*=", "*="), "div": ("/=", "/="),
    "sdiv": ("s/=", "s/="), "mod": ("%=", "%="), "smod": ("s%=", "s%="), "or": ("|=", "|="),
    "and": ("&=", "&="), "xor": ("^=", "^="), "lsh": ("<<=", "<<="), "rsh": (">>=", ">>="),
    "arsh": ("s>>=", "s>>="),
}

# Immediates and register operands per op.
IMMS = {
    "add": [1, -1, 7, 0x7fffffff, -2147483648, 1000],
    "sub": [1, -1, 7, 0x7fffffff, -2147483648],
    "mul": [0, 1, 3, -1, 0x10000, -2147483648],
    "div": [1, 3, 0x10, -1, 0x7fffffff],
    "sdiv": [1, 3, -1, -3, -2147483648],
    "mod": [1, 3, 0x10, -1, 0x10001],
    "smod": [1, 3, -1, -3, -2147483648],
    "or": [0, 1, 0xf0, -1, -2147483648],
    "and": [0, 1, 0xf0, -1, 0x7fffffff, -2147483648],
    "xor": [0, 1, 0xff, -1, -2147483648],
    "lsh": [0, 1, 4, 31, 32, 63],
    "rsh": [0, 1, 4, 31, 32, 63],
    "arsh": [0, 1, 4, 31, 32, 63],
}
SRCS = {
    "add": ["c5", "u8", "s8_7", "unk", "cmin"],
    "sub": ["c5", "u8", "s8_7", "neg", "cm7"],
    "mul": ["c3", "u8", "s8_7", "unk", "cm1"],
    "div": ["c3", "c0", "cm1", "u8", "cbig"],
    "sdiv": ["c3", "c0", "cm1", "cm7", "cmin"],
    "mod": ["c3", "c0", "cm1", "u8", "cbig"],
    "smod": ["c3", "c0", "cm1", "cm7", "cmin"],
    "or": ["c5", "u8", "bits", "unk", "cm1"],
    "and": ["c5", "u8", "bits", "hi", "cm1"],
    "xor": ["c5", "u8", "bits", "s8_7", "cm1"],
    "lsh": ["c3", "c31", "c63", "u8", "c0"],
    "rsh": ["c3", "c31", "c63", "u8", "c0"],
    "arsh": ["c3", "c31", "c63", "u8", "c0"],
}


def alu_prog(op, dst_shape, width):
    """dst in r6, three register operands in r7..r9; each use works on a copy
    in r0 (64-bit) or w0 (32-bit)."""
    p = Prog()
    srcs = SRCS[op][:3] if width == 64 else SRCS[op][2:5]
    p.load(6, dst_shape)
    for reg, s in zip((7, 8, 9), srcs):
        p.load(reg, s)
    sym64, sym32 = ALU_OPS[op]
    for reg in (7, 8, 9):
        if width == 64:
            p.main += ["r0 = r6", f"r0 {sym64} r{reg}"]
        else:
            p.main += ["w0 = w6", f"w0 {sym32} w{reg}"]
    for imm in IMMS[op]:
        if op in ("lsh", "rsh", "arsh") and width == 32 and imm >= 32:
            continue
        if width == 64:
            p.main += ["r0 = r6", f"r0 {sym64} {imm}"]
        else:
            p.main += ["w0 = w6", f"w0 {sym32} {imm}"]
    # the operation on itself
    if width == 64:
        p.main += ["r0 = r6", f"r0 {sym64} r0"]
    else:
        p.main += ["w0 = w6", f"w0 {sym32} w0"]
    return p.text()


UNARY = [
    "r0 = -r0", "w0 = -w0",
    "r0 = le16 r0", "r0 = le32 r0", "r0 = le64 r0",
    "r0 = be16 r0", "r0 = be32 r0", "r0 = be64 r0",
    "r0 = bswap16 r0", "r0 = bswap32 r0", "r0 = bswap64 r0",
]
MOVS = ["r0 = (s8)r6", "r0 = (s16)r6", "r0 = (s32)r6", "w0 = (s8)w6", "w0 = (s16)w6", "w0 = w6",
        "r0 = r6"]


def unary_prog(dst_shape):
    p = Prog()
    p.load(6, dst_shape)
    for u in UNARY:
        p.main += ["r0 = r6", u]
    for m in MOVS:
        p.main += [m]
    return p.text()


JMP_OPS = {"jeq": "==", "jne": "!=", "jgt": ">", "jge": ">=", "jlt": "<", "jle": "<=",
           "jsgt": "s>", "jsge": "s>=", "jslt": "s<", "jsle": "s<=", "jset": "&"}
JMP_IMMS = [0, 1, -1, 5, 10, 25, 255, 256, 1000, 0x7fffffff, -2147483648, -8, 7, 100, -100, 0xff00]
JMP_SRCS = ["c5", "u8", "s8_7", "unk", "r10_25", "cm1", "br_u", "u32", "c0", "neg"]


def jmp_prog(op, dst_shape, width, k):
    """Two K compares and one X compare (each target an exit that reads the
    operands), then the operand compared with itself."""
    p = Prog()
    sym = JMP_OPS[op]
    src_shape = JMP_SRCS[k % len(JMP_SRCS)]
    p.load(6, dst_shape)
    p.load(7, src_shape)
    r = "w" if width == 32 else "r"
    imms = [JMP_IMMS[(k * 3 + i * 7) % len(JMP_IMMS)] for i in range(2)]
    for imm in imms:
        t = p.label(["r0 = r6", "r0 = r7", "exit"])
        p.main.append(f"if {r}6 {sym} {imm} goto {t}")
    t = p.label(["r0 = r6", "r0 = r7", "exit"])
    p.main.append(f"if {r}6 {sym} {r}7 goto {t}")
    t = p.label(["r0 = r6", "exit"])
    p.main.append(f"if {r}6 {sym} {r}6 goto {t}")
    p.main += ["r0 = r6", "r0 = r7"]
    return p.text()


def linked_prog(k):
    """Scalar ids: copies, `rX += const` links, and branches that narrow every
    linked register."""
    p = Prog()
    p.load(6, ["unk", "u8", "u32", "s8_7"][k % 4])
    r = "w" if k % 3 == 2 else "r"
    delta = [1, -5, 0x7fff, 100][k % 4]
    p.main += ["r7 = r6", f"{r}7 += {delta}", "r8 = r6", "r8 -= 3"]
    for i, (sym, imm) in enumerate([(">", 50), ("s<", 2), ("<=", 200), ("!=", 7)][: 2 + k % 3]):
        t = p.label(["r0 = r6", "r0 = r7", "r0 = r8", "exit"])
        reg = [6, 7, 8][(i + k) % 3]
        p.main.append(f"if r{reg} {sym} {imm} goto {t}")
    p.main += ["r0 = r6", "r0 = r7", "r0 = r8"]
    return p.text()


# Compares at and next to the ends of a shape's range, and at the members of
# sparse tnums (a range and a tnum meeting in one value makes a constant).
EDGE_IMMS = {
    "u8": [-1, 0, 1, 254, 255, 256],
    "r10_25": [9, 10, 11, 24, 25, 26],
    "s8_7": [-9, -8, -7, 6, 7, 8],
    "neg": [-301, -300, -299, -46, -45, -44],
    "sparse": [0, 1, 2, 15, 16, 17],
    "sparse2": [0, 1, 15, 16, 17, -1],
    "smax_plus": [0, 10, -1, 0x7fffffff, -2147483648, 1],
    "smax32_plus": [0, 10, -1, 0x7fffffff, -2147483648, 1],
    "wrap32": [-9, -8, 7, 8, 0, -1],
}


def edge_jmp_prog(op, shape_name, width):
    """One fresh operand per compare, so the refinements do not compound."""
    p = Prog()
    r = "w" if width == 32 else "r"
    for imm in EDGE_IMMS[shape_name]:
        p.load(6, shape_name)
        t = p.label(["r0 = r6", "exit"])
        p.main.append(f"if {r}6 {JMP_OPS[op]} {imm} goto {t}")
        p.main.append("r0 = r6")
    return p.text()


# Operations at the edges of their precise cases: shifts that may or may not
# push out the top bit, products that may or may not overflow, divisions of
# the minimum, narrowing by the sparse tnums.
EDGE_ALU = [
    ("u8", ["r0 = r6", "r0 <<= 55", "r0 = r6", "r0 <<= 56", "w0 = w6", "w0 <<= 23", "w0 = w6", "w0 <<= 24"]),
    ("u8p1", ["r0 = r6", "r0 <<= 55", "r0 = r6", "r0 <<= 56", "w0 = w6", "w0 <<= 23", "w0 = w6", "w0 <<= 24"]),
    ("s32", ["r0 = r6", "r0 <<= 32", "r0 = r6", "r0 <<= 31", "r0 = r6", "r0 <<= 33", "r0 = r6", "r0 s>>= 63"]),
    ("u16", ["r0 = r6", "r0 *= 0x10000", "r0 = r6", "r0 *= 0x10001", "w0 = w6", "w0 *= 0x10000",
             "w0 = w6", "w0 *= 0x10001", "r0 = r6", "r0 *= -1", "w0 = w6", "w0 *= -1"]),
    ("s8_7", ["r0 = r6", "r0 *= -2147483648", "w0 = w6", "w0 *= -2147483648", "w0 = w6", "w0 *= 0x10000000",
              "r0 = r6", "r0 s/= -1", "w0 = w6", "w0 s/= -1", "r0 = r6", "r0 s%= -1", "w0 = w6", "w0 s%= 7"]),
    ("cmin", ["r0 = r6", "r0 s/= -1", "r0 = r6", "r0 s%= -1", "r0 = r6", "r0 /= -1", "r0 = r6", "r0 s/= 2",
              "r0 = r6", "r0 = -r0", "r0 = r6", "r0 -= 1", "r0 = r6", "r0 += -1"]),
    ("cs32min", ["w0 = w6", "w0 s/= -1", "w0 = w6", "w0 s%= -1", "w0 = w6", "w0 = -w0", "w0 = w6", "w0 s>>= 31",
                 "r0 = r6", "r0 s/= -1"]),
    ("smax_plus", ["r0 = r6", "r0 += 1", "w0 = w6", "w0 += 1", "r0 = r6", "r0 &= 0xff", "r0 = r6", "r0 = -r0"]),
    ("smax32_plus", ["r0 = r6", "r0 += 1", "w0 = w6", "w0 += 1", "w0 = w6", "w0 -= 1", "r0 = r6", "r0 <<= 32"]),
    ("sparse", ["r0 = r6", "r0 |= 0xe", "r0 = r6", "r0 ^= 0x11", "r0 = r6", "r0 *= 3", "r0 = r6", "r0 -= 1"]),
    ("hi", ["r0 = r6", "r0 >>= 31", "r0 = r6", "r0 >>= 32", "r0 = r6", "r0 s>>= 31", "w0 = w6", "w0 s>>= 31",
            "r0 = r6", "r0 /= 3", "r0 = r6", "r0 %= 0x10000", "r0 = r6", "r0 s%= 0x10000"]),
]


# Two compares that leave a range meeting the tnum in few values.
EDGE_TNUM = [
    ("sparse", [("<", 2), (">", 16)]), ("sparse", [(">", 15), ("<", 1)]), ("sparse", [(">", 16), ("<", 2)]),
    ("sparse", [("s<", 2), ("s>", 16)]), ("sparse", [("<", 1), ("!=", 17)]), ("sparse", [("==", 16), (">", 1)]),
    ("sparse", [("<", 17), (">", 1)]), ("sparse2", [("<", 1), (">", 100)]), ("sparse2", [(">", 15), ("<", 17)]),
    ("bits", [("<", 20), (">", 40)]), ("bits", [("<", 0x13), (">", 0x23)]), ("even", [("<", 3), (">", 4)]),
    ("even", [("s<", 253), ("s>", 254)]), ("hi", [("s<", -2), ("s>", -2)]),
]


def edge_tnum_prog(shape_name, cmps, width):
    p = Prog()
    r = "w" if width == 32 else "r"
    p.load(6, shape_name)
    for sym, imm in cmps:
        t = p.label(["r0 = r6", "exit"])
        p.main.append(f"if {r}6 {sym} {imm} goto {t}")
    p.main.append("r0 = r6")
    return p.text()


def edge_alu_prog(shape_name, ops):
    p = Prog()
    p.load(6, shape_name)
    p.main += ops
    return p.text()


def random_prog(rng, p32=1 / 3):
    """Random straight-line mixes of ops and branches over r6..r9; `p32` is
    the share of 32-bit ops and JMP32 compares."""
    p = Prog()
    regs = [6, 7, 8, 9]
    for r in regs:
        p.load(r, rng.choice(list(SHAPES)))
    for _ in range(rng.randint(8, 18)):
        d = rng.choice(regs)
        w = "w" if rng.random() < p32 else "r"
        kind = rng.random()
        if kind < 0.6:
            op = rng.choice(list(ALU_OPS))
            sym = ALU_OPS[op][0]
            if rng.random() < 0.5:
                s = rng.choice(regs)
                p.main.append(f"{w}{d} {sym} {w}{s}")
            else:
                imm = rng.choice(IMMS[op])
                if op in ("lsh", "rsh", "arsh") and w == "w" and imm >= 32:
                    imm = 31
                p.main.append(f"{w}{d} {sym} {imm}")
        elif kind < 0.7:
            p.main.append(rng.choice([f"r{d} = -r{d}", f"w{d} = -w{d}", f"r{d} = be16 r{d}",
                                      f"r{d} = bswap32 r{d}", f"r{d} = (s8)r{rng.choice(regs)}",
                                      f"w{d} = (s16)w{rng.choice(regs)}",
                                      f"r{d} = r{rng.choice(regs)}", f"w{d} = w{rng.choice(regs)}"]))
        else:
            op = rng.choice(list(JMP_OPS))
            sym = JMP_OPS[op]
            t = p.label(["r0 = r6", "r0 = r7", "r0 = r8", "r0 = r9", "exit"])
            if rng.random() < 0.5:
                p.main.append(f"if {w}{d} {sym} {w}{rng.choice(regs)} goto {t}")
            else:
                p.main.append(f"if {w}{d} {sym} {rng.choice(JMP_IMMS)} goto {t}")
    p.main += ["r0 = r6", "r0 = r7", "r0 = r8", "r0 = r9"]
    return p.text()


def programs():
    """{group: [(name, asm)]}"""
    groups = {}
    for op in ALU_OPS:
        g = groups.setdefault(f"alu_{op}", [])
        for width in (64, 32):
            for ds in DST_SHAPES:
                g.append((f"{op}{width}_{ds}", alu_prog(op, ds, width)))
    g = groups.setdefault("unary", [])
    for ds in DST_SHAPES:
        g.append((f"unary_{ds}", unary_prog(ds)))
    for op in JMP_OPS:
        g = groups.setdefault(f"jmp_{op}", [])
        for width in (64, 32):
            for k, ds in enumerate(DST_SHAPES):
                g.append((f"{op}{width}_{ds}", jmp_prog(op, ds, width, k)))
    g = groups.setdefault("edge_jmp", [])
    for op in JMP_OPS:
        for width in (64, 32):
            for sh in EDGE_IMMS:
                g.append((f"{op}{width}_{sh}", edge_jmp_prog(op, sh, width)))
    g = groups.setdefault("edge_alu", [])
    for sh, ops in EDGE_ALU:
        g.append((f"alu_{sh}", edge_alu_prog(sh, ops)))
    for k, (sh, cmps) in enumerate(EDGE_TNUM):
        for width in (64, 32):
            g.append((f"tnum{width}_{k}_{sh}", edge_tnum_prog(sh, cmps, width)))
    g = groups.setdefault("linked", [])
    for k in range(24):
        g.append((f"linked_{k}", linked_prog(k)))
    rng = random.Random(7303)
    g = groups.setdefault("random", [])
    for k in range(300):
        g.append((f"random_{k}", random_prog(rng)))
    g = groups.setdefault("random32", [])
    for k in range(200):
        g.append((f"random32_{k}", random_prog(rng, 0.8)))
    return groups


def to_hex(asm):
    """llvm-mc-19's encoding of `asm`, as --hex input. For programs with `%=`,
    which the oracle's inline-asm preprocessing would eat."""
    with tempfile.TemporaryDirectory() as tmp:
        src, obj, binf = (os.path.join(tmp, n) for n in ("p.s", "p.o", "p.bin"))
        with open(src, "w") as f:
            f.write(asm.replace("call bpf_get_prandom_u32", "call 7").replace("; ", "\n") + "\n")
        subprocess.run(["llvm-mc-19", "-triple", "bpfel", "-mcpu=v4", "-filetype=obj", "-o", obj, src],
                       check=True)
        subprocess.run(["llvm-objcopy-19", "-O", "binary", "--only-section=.text", obj, binf], check=True)
        raw = open(binf, "rb").read()
    return " ".join(raw[i:i + 4].hex() for i in range(0, len(raw), 4))


def main_pass(log):
    """The main pass of a level-2 log: after the "Live regs before insn"
    listing, without mark_precise lines and blank lines."""
    lines = log.split("\n")
    start = 0
    for i, l in enumerate(lines):
        if l.startswith("Live regs before insn:"):
            start = i + 1
    out = []
    for l in lines[start:]:
        if not l.strip() or l.startswith(" ") or l.startswith("mark_precise:"):
            continue
        if l.startswith("processed "):
            break
        out.append(l)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", default="x86_64")
    ap.add_argument("--only", help="record only this group")
    ap.add_argument("--dry-run", action="store_true", help="print the jobs file and stop")
    ap.add_argument("--out", default=OUT, help="output directory (default: the goldens)")
    a = ap.parse_args()

    groups = programs()
    if a.only:
        groups = {a.only: groups[a.only]}
    jobs = []
    for g, progs in groups.items():
        for name, asm in progs:
            assert "'" not in asm
            src = f"--hex '{to_hex(asm)}'" if "%=" in asm else f"--asm-text '{asm}'"
            jobs.append(f"{g}__{name}: --type socket_filter --log-level 2 {src}\n")
    if a.dry_run:
        sys.stdout.write("".join(jobs))
        return
    with tempfile.TemporaryDirectory() as tmp:
        jf = os.path.join(tmp, "jobs.txt")
        with open(jf, "w") as f:
            f.writelines(jobs)
        res = subprocess.run([sys.executable, os.path.join(ORACLE, "vm_oracle.py"), "--arch", a.arch,
                              "--jobs", jf, "--json", "--jited", "none"],
                             check=True, capture_output=True, text=True)
    doc = json.loads(res.stdout)
    by_name = {p["name"]: p for p in doc["programs"]}
    os.makedirs(a.out, exist_ok=True)
    total = rejected = 0
    for g, progs in groups.items():
        with open(os.path.join(a.out, f"{g}.txt"), "w") as f:
            f.write(f"# Linux 7.3.4 {a.arch} (QEMU) level-2 verifier logs of socket_filter programs,\n")
            f.write("# loaded privileged. Recorded by scripts/record-scalar-goldens.py; do not edit.\n")
            for name, asm in progs:
                p = by_name[f"{g}__{name}"]
                total += 1
                if p.get("accepted"):
                    result = f"accepted verified_insns={p.get('verified_insns')}"
                else:
                    rejected += 1
                    result = f"rejected errno={p.get('errno_name')}"
                f.write(f"\n=== {name}\nasm: {asm}\nresult: {result}\n")
                for l in main_pass(p.get("log") or ""):
                    f.write(l + "\n")
    print(f"{total} programs, {rejected} rejected, in {len(groups)} groups -> {a.out}")


if __name__ == "__main__":
    main()

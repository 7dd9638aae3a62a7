#!/usr/bin/env python3
"""Record `imm` lines of harness/model/src/fixups/calls/bpf_call_imms.txt
from the kallsyms of the 7.3 images (as the vm backend caches them:
/var/cache/bpf-selftest/kallsyms/<release>-*.txt).

An imm is `BPF_CALL_IMM(func)`: the function's address minus
`__bpf_call_base`. Every existing imm line is checked against the images
(a mismatch is an error); the functions named with --add get a line each,
after the last imm line, in name order.

Usage:
  scripts/record-call-imms.py --x86_64 KALLSYMS --arm64 KALLSYMS [--add FUNC ...]
"""

import argparse
import sys

TABLE = "harness/model/src/fixups/calls/bpf_call_imms.txt"


def symbols(path):
    syms = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and not line.startswith("#"):
                try:
                    syms.setdefault(parts[2], int(parts[0], 16))
                except ValueError:
                    pass
    return syms


def imm(syms, func):
    if func not in syms:
        return None
    v = syms[func] - syms["__bpf_call_base"]
    if not -(1 << 31) <= v < (1 << 31):
        sys.exit(f"{func}: {v:#x} does not fit a call's imm")
    return v


def fmt(v):
    return "-" if v is None else (f"-{-v:#x}" if v < 0 else f"{v:#x}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--x86_64", required=True)
    ap.add_argument("--arm64", required=True)
    ap.add_argument("--add", nargs="*", default=[])
    ap.add_argument("--table", default=TABLE)
    a = ap.parse_args()
    images = [symbols(a.x86_64), symbols(a.arm64)]
    lines = open(a.table).read().splitlines()
    have = set()
    last_imm = None
    for i, line in enumerate(lines):
        f = line.split()
        if f[:1] == ["imm"]:
            have.add(f[1])
            last_imm = i
            want = [fmt(imm(s, f[1])) for s in images]
            if want != f[2:4]:
                sys.exit(f"{f[1]}: the table says {f[2:4]}, the images {want}")
    new = []
    for func in a.add:
        if func in have:
            continue
        vals = [imm(s, func) for s in images]
        if all(v is None for v in vals):
            sys.exit(f"{func} is in neither image's kallsyms")
        new.append(f"imm {func} {fmt(vals[0])} {fmt(vals[1])}")
    if last_imm is None:
        sys.exit("the table has no imm lines")
    lines[last_imm + 1 : last_imm + 1] = sorted(new)
    with open(a.table, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(have)} imm lines checked, {len(new)} added")


if __name__ == "__main__":
    main()

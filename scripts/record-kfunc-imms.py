#!/usr/bin/env python3
"""Writes the call imms of every kfunc of the Debian 7.3.4 images into
harness/model/src/fixups/calls/bpf_call_imms.txt: what bpf_fixup_kfunc_call
puts in a kfunc call's imm, the function's address minus `__bpf_call_base`;
and the addresses of the kernel variables the selftests load as typed
`__ksym`s (what check_pseudo_btf_id puts in the ld_imm64).

The kfuncs are the functions the image's vmlinux BTF tags `bpf_kfunc`
($BPF_SELFTEST_CACHE/btf/<version>-<debian arch>/vmlinux.btf), and the
functions specialize_kfunc calls in their place (SPECIALIZED); the addresses
come from the kallsyms of a booted guest (a `nokaslr` boot, so the image's
own addresses) that the vm backend keeps in $BPF_SELFTEST_CACHE/kallsyms/.
No kernel runs.

The lines go to the block after the `# kfuncs` comment line, sorted (the
typed ksyms' `addr` lines after the `imm` ones); a name that has a line
elsewhere in the file keeps it there and is checked against kallsyms.

  bpf-selftest record --set kfunc-imms [--check]   # runs this script
  scripts/record-kfunc-imms.py [--check]
"""
import argparse
import glob
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("BPF_SELFTEST_CACHE", "/var/cache/bpf-selftest")
VERSION = os.environ.get("BPF_SELFTEST_VM_KERNEL", "7.3.4+deb13")
# the table's columns, in order
ARCHES = {"x86_64": f"{VERSION}-amd64", "arm64": f"{VERSION}-arm64"}
TABLE = os.path.join(ROOT, "harness/model/src/fixups/calls/bpf_call_imms.txt")
BLOCK = "# kfuncs (scripts/record-kfunc-imms.py): the bpf_kfunc-tagged functions of the images' BTF, then the typed ksyms"
# what specialize_kfunc (verifier.c) calls instead of a kfunc, in some
# program types or sleepable contexts: not tagged themselves
SPECIALIZED = ["bpf_dynptr_from_skb_rdonly", "bpf_dynptr_from_file_sleepable", "bpf_arena_alloc_pages_non_sleepable",
               "bpf_arena_free_pages_non_sleepable", "bpf_set_dentry_xattr_locked", "bpf_remove_dentry_xattr_locked"]


def btf_module():
    spec = importlib.util.spec_from_file_location("record_vmlinux_btf", os.path.join(ROOT, "scripts/record-vmlinux-btf.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def kfuncs(arch):
    """The names of the FUNCs a `bpf_kfunc` decl tag names, sorted."""
    path = os.path.join(CACHE, "btf", ARCHES[arch], "vmlinux.btf")
    types = btf_module().parse(open(path, "rb").read())
    return sorted({types[t["st"]]["name"] for t in types[1:]
                   if t["kind"] == "decl_tag" and t["name"] == "bpf_kfunc" and types[t["st"]]["kind"] == "func"})


def kallsyms(arch, text):
    """Name -> address of vmlinux's symbols (no `[module]` column), the
    text ones or the others; the first of a name."""
    paths = glob.glob(os.path.join(CACHE, "kallsyms", glob.escape(ARCHES[arch]) + "-*.txt"))
    if len(paths) != 1:
        sys.exit(f"{arch}: {len(paths)} kallsyms files for {ARCHES[arch]} in {CACHE}/kallsyms (a guest boot writes one)")
    syms = {}
    for line in open(paths[0]):
        f = line.split()
        if len(f) == 3 and (f[1] in "tT") == text:
            syms.setdefault(f[2], int(f[0], 16))
    return syms


def imm(syms, name):
    if name not in syms:
        return "-"
    v = syms[name] - syms["__bpf_call_base"]
    if not -2**31 <= v < 2**31:
        return "-"
    return f"-{-v:#x}" if v < 0 else f"{v:#x}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="compare with the table, write nothing")
    ap.add_argument("--src", default=os.path.join(CACHE, "linux-7.3"), help="the kernel tree whose selftests name the typed ksyms")
    a = ap.parse_args()
    names, syms, data = set(SPECIALIZED), {}, {}
    for arch in ARCHES:
        names |= set(kfuncs(arch))
        syms[arch] = kallsyms(arch, True)
        data[arch] = kallsyms(arch, False)
    ksyms = [k for k in btf_module().selftest_typed_ksyms(a.src) if any(k in data[arch] for arch in ARCHES)]
    lines = open(TABLE).read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    head = lines[:lines.index(BLOCK)] if BLOCK in lines else lines
    elsewhere = {}
    for n, l in enumerate(head):
        f = l.split()
        if len(f) == 4 and f[0] in ("imm", "addr"):
            elsewhere[(f[0], f[1])] = n
    drift, block = [], []

    def place(kind, name, line):
        """A line kept where the table already has it (a changed one is
        drift), else added to the generated block."""
        n = elsewhere.get((kind, name))
        if n is None:
            block.append(line)
        elif head[n] != line:
            drift.append(f"`{head[n]}`, kallsyms give `{line}`")
            head[n] = line

    for name in sorted(names):
        row = [imm(syms[arch], name) for arch in ARCHES]
        if all(v == "-" for v in row):
            drift.append(f"kfunc {name}: in no image's kallsyms")
            continue
        place("imm", name, f"imm {name} {' '.join(row)}")
    # the typed ksyms the images have (bpf_testmod's are not vmlinux's)
    for name in ksyms:
        place("addr", name, f"addr {name} " + " ".join(f"{data[arch][name]:#x}" if name in data[arch] else "-" for arch in ARCHES))
    out = head + [BLOCK] + block
    old = open(TABLE).read()
    new = "\n".join(out) + "\n"
    if a.check:
        same = old == new
        print(f"record --set kfunc-imms: {len(names)} kfuncs, {len(ksyms)} typed ksyms, table {'unchanged' if same else 'drifted'}")
        for d in drift:
            print(d, file=sys.stderr)
        sys.exit(0 if same else 1)
    for d in drift:
        print(d, file=sys.stderr)
    with open(TABLE, "w") as f:
        f.write(new)
    print(f"{TABLE}: {len(block)} lines in the block ({len(ksyms)} typed ksyms' addresses)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Records the vmlinux BTF ids of kfuncs in the Debian 7.3.4 kernels (x86_64 and
arm64) and writes them into harness/src/verifier/kfunc_btf_ids.rs (between the
GENERATED markers).

The 7.3 verifier prints a kfunc call as `call bpf_iter_num_new#70246`: each
kfunc is called from a tiny raw_tp program loaded at log level 2, and the id is
read from the level-2 listing. The kfunc names are the ones the kernel defines
(`BTF_ID_FLAGS(func, ...)` in the 7.3 source cache) plus those the kernel's
selftests call from naked asm. Kfuncs of modules (bpf_testmod) are not in
vmlinux and are skipped. The kernel runs under QEMU through the oracle kit in
../shared/oracle (only run here).

  scripts/record-kfunc-btf-ids.py
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE = os.environ.get("BPF_ORACLE_DIR", os.path.join(ROOT, "..", "shared", "oracle"))
SRC = os.path.join(os.environ.get("BPF_ORACLE_CACHE", "/var/cache/bpf-oracle"), "linux-7.3")
OUT = os.path.join(ROOT, "harness/src/verifier/kfunc_btf_ids.rs")


def kfunc_names():
    names = set()
    for f in glob.glob(os.path.join(SRC, "kernel/**/*.c"), recursive=True) + glob.glob(os.path.join(SRC, "net/**/*.c"), recursive=True):
        with open(f, errors="replace") as fh:
            names.update(re.findall(r"BTF_ID_FLAGS\(func,\s*([A-Za-z_0-9]+)", fh.read()))
    helpers = set()
    with open(os.path.join(ROOT, "harness/isa/src/helper_ids.rs")) as fh:
        helpers = {"bpf_" + n for n in re.findall(r'"([a-z0-9_]+)", // \d+', fh.read())}
    for f in glob.glob(os.path.join(SRC, "tools/testing/selftests/bpf/progs/*.c")):
        with open(f, errors="replace") as fh:
            for n in re.findall(r"call %\[(bpf_[a-z0-9_]+)\]|__imm\((bpf_[a-z0-9_]+)\)", fh.read()):
                n = n[0] or n[1]
                if n not in helpers:
                    names.add(n)
    # kfuncs the selftests declare (`extern ... name(...) __ksym`)
    for f in glob.glob(os.path.join(SRC, "tools/testing/selftests/bpf/*.h")) + glob.glob(os.path.join(SRC, "tools/testing/selftests/bpf/progs/*.[ch]")):
        if not os.path.isfile(f):
            continue
        with open(f, errors="replace") as fh:
            for decl in re.findall(r"extern[^;{]*?__ksym", fh.read(), re.S):
                m = re.search(r"\b([A-Za-z_][A-Za-z_0-9]*)\s*\(", decl)
                if m and m.group(1) not in helpers and not m.group(1).startswith("bpf_testmod"):
                    names.add(m.group(1))
    return sorted(names)


def record(arch, names):
    with tempfile.TemporaryDirectory() as d:
        jf = os.path.join(d, "jobs.txt")
        with open(jf, "w") as f:
            for n in names:
                f.write(f"k_{n}: --type raw_tp --log-level 2 --log-size 65536 --asm-text 'call {n}; r0 = 0; exit'\n")
        r = subprocess.run([os.path.join(ORACLE, "vm_oracle.py"), "--arch", arch, "--jobs", jf, "--json", "--jited", "none"],
                           capture_output=True, text=True)
        try:
            progs = json.loads(r.stdout)["programs"]
        except ValueError:
            sys.exit(f"vm_oracle.py failed:\n{r.stderr[-3000:]}")
    ids = {}
    for p in progs:
        m = re.search(r"call ([A-Za-z_0-9]+)#(\d+)", p.get("log", ""))
        if m:
            ids[m.group(1)] = int(m.group(2))
    return ids


def rust_table(name, ids):
    rows = "".join(f'    ("{k}", {v}),\n' for k, v in sorted(ids.items()))
    return f"const {name}: &[(&str, u32)] = &[\n{rows}];\n"


def main():
    names = kfunc_names()
    tables = {}
    for arch in ("x86_64", "arm64"):
        tables[arch] = record(arch, names)
        print(f"{arch}: {len(tables[arch])} of {len(names)} kfuncs have vmlinux BTF ids")
    with open(OUT) as f:
        src = f.read()
    head, rest = src.split("// BEGIN GENERATED", 1)
    _, tail = rest.split("// END GENERATED", 1)
    gen = "// BEGIN GENERATED (scripts/record-kfunc-btf-ids.py)\n" + rust_table("X86_64", tables["x86_64"]) + rust_table("ARM64", tables["arm64"])
    with open(OUT, "w") as f:
        f.write(head + gen + "// END GENERATED" + tail)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Records which maps Linux 7.3 creates (BPF_MAP_CREATE's errno per type,
sizes and flags, as root and as test_loader's unprivileged run), for the
map_create test of tests/verifier_calls.rs. One QEMU boot through the
oracle kit in ../shared/oracle; writes expected/linux-7.3/map_create.txt:

  TYPE KEY_SIZE VALUE_SIZE MAX_ENTRIES FLAGS root|unpriv => ok|ERRNO

  scripts/record-map-create-goldens.py [--arch x86_64] [--dry-run]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE = os.path.join(os.path.dirname(ROOT), "shared", "oracle")

NO_PREALLOC, NO_COMMON_LRU, NUMA, RDONLY, WRONLY = 1, 2, 4, 8, 16
BUILD_ID, ZERO_SEED, RDONLY_PROG, WRONLY_PROG = 32, 64, 128, 256
MMAPABLE, PRESERVE, INNER, TOKEN, RB_OVERWRITE = 1 << 10, 1 << 11, 1 << 12, 1 << 16, 1 << 19

# (type, key_size, value_size, max_entries, flags, unpriv)
CASES = [
    # array and percpu array
    (2, 4, 8, 1, 0, 0), (2, 4, 8, 1, 0, 1), (2, 8, 8, 1, 0, 0), (2, 4, 0, 1, 0, 0), (2, 4, 8, 0, 0, 0),
    (2, 4, 8, 1, MMAPABLE, 0), (2, 4, 8, 1, INNER, 0), (2, 4, 8, 1, PRESERVE, 0), (2, 4, 8, 1, NO_PREALLOC, 0),
    (2, 4, 8, 1, RDONLY_PROG | WRONLY_PROG, 0), (2, 4, 8, 1, RDONLY_PROG, 0), (2, 4, 8, 1, RDONLY | WRONLY, 0),
    (2, 4, 8, 1, NUMA, 0), (2, 4, 8, 1, TOKEN, 0), (2, 4, 0x80000000, 1, 0, 0), (2, 4, 8, 0x80000001, 0, 0),
    (2, 4, 8, 0x80000001, 0, 1), (2, 4, 8, 5, 0, 1),
    (6, 4, 8, 1, 0, 0), (6, 4, 32768, 1, 0, 0), (6, 4, 32769, 1, 0, 0), (6, 4, 8, 1, NUMA, 0), (6, 4, 8, 1, MMAPABLE, 0),
    # fd arrays
    (3, 4, 4, 4, 0, 0), (3, 4, 8, 4, 0, 0), (3, 4, 4, 4, RDONLY_PROG, 0), (3, 4, 4, 4, 0, 1),
    (4, 4, 4, 4, 0, 0), (4, 4, 4, 4, PRESERVE, 0), (8, 4, 4, 4, 0, 0), (8, 4, 8, 4, 0, 0),
    # hashes
    (1, 4, 8, 16, 0, 0), (1, 4, 8, 16, 0, 1), (1, 0, 8, 16, 0, 0), (1, 4, 0, 16, 0, 0), (1, 4, 8, 0, 0, 0),
    (1, 4, 8, 16, NO_PREALLOC, 0), (1, 4, 8, 16, ZERO_SEED, 0), (1, 4, 8, 16, ZERO_SEED, 1), (1, 4, 8, 16, NO_COMMON_LRU, 0),
    (1, 4, 4194300, 1, 0, 0), (1, 4, 8, 0x80000001, 0, 0), (1, 4, 8, 0x80000000, 0, 0), (1, 4, 8, 16, MMAPABLE, 0),
    (5, 4, 8, 16, 0, 0), (5, 4, 32769, 16, 0, 0), (5, 4, 8, 16, NUMA, 0),
    (9, 4, 8, 16, 0, 0), (9, 4, 8, 16, NO_PREALLOC, 0), (9, 4, 8, 16, NO_COMMON_LRU, 0), (9, 4, 8, 16, 0, 1),
    (10, 4, 8, 16, NO_COMMON_LRU | NUMA, 0), (10, 4, 8, 16, 0, 0),
    (35, 4, 8, 16, NO_PREALLOC, 0), (35, 4, 8, 16, 0, 0), (35, 4, 8, 16, NO_PREALLOC | ZERO_SEED, 0),
    # lpm trie
    (11, 8, 8, 1, NO_PREALLOC, 0), (11, 8, 8, 1, 0, 0), (11, 4, 8, 1, NO_PREALLOC, 0), (11, 260, 8, 1, NO_PREALLOC, 0),
    (11, 261, 8, 1, NO_PREALLOC, 0), (11, 8, 8, 1, NO_PREALLOC, 1), (11, 8, 0, 1, NO_PREALLOC, 0),
    # ring buffers
    (27, 0, 0, 4096, 0, 0), (27, 0, 0, 4096, 0, 1), (27, 0, 0, 4095, 0, 0), (27, 0, 0, 8192, 0, 0), (27, 0, 0, 12288, 0, 0),
    (27, 4, 0, 4096, 0, 0), (27, 0, 0, 4096, RB_OVERWRITE, 0), (27, 0, 0, 4096, NUMA, 0), (27, 0, 0, 4096, RDONLY, 0),
    (31, 0, 0, 4096, 0, 0), (31, 0, 0, 4096, RB_OVERWRITE, 0),
    # queue, stack, bloom filter
    (22, 0, 8, 16, 0, 0), (22, 4, 8, 16, 0, 0), (22, 0, 0, 16, 0, 0), (22, 0, 8, 16, 0, 1), (22, 0, 8, 0x20000000, 0, 0),
    (23, 0, 8, 16, 0, 0), (23, 0, 8, 16, NO_PREALLOC, 0),
    (30, 0, 8, 16, 0, 0), (30, 4, 8, 16, 0, 0), (30, 0, 8, 16, 0, 1), (30, 0, 8, 16, ZERO_SEED, 0),
    # cgroup storage
    (19, 16, 8, 0, 0, 0), (19, 8, 8, 0, 0, 0), (19, 4, 8, 0, 0, 0), (19, 16, 8, 1, 0, 0), (19, 16, 0, 0, 0, 0),
    (19, 16, 65407, 0, 0, 0), (19, 16, 65408, 0, 0, 0), (19, 16, 8, 0, 0, 1), (21, 16, 32768, 0, 0, 0), (21, 16, 32769, 0, 0, 0),
    # stack traces
    (7, 4, 8, 1, 0, 0), (7, 4, 12, 1, 0, 0), (7, 4, 1016, 1, 0, 0), (7, 4, 1024, 1, 0, 0), (7, 4, 32, 1, BUILD_ID, 0),
    (7, 4, 8, 1, 0, 1),
    # networking maps
    (14, 4, 4, 1, 0, 0), (14, 4, 8, 1, 0, 0), (14, 4, 12, 1, 0, 0), (14, 4, 4, 1, 0, 1), (25, 4, 4, 1, 0, 0),
    (15, 4, 4, 1, 0, 0), (15, 4, 8, 1, 0, 0), (15, 4, 12, 1, 0, 0), (18, 4, 4, 1, 0, 0), (18, 0, 4, 1, 0, 0), (18, 513, 4, 1, 0, 0),
    (17, 4, 4, 1, 0, 0), (17, 4, 8, 1, 0, 0), (16, 4, 4, 1, 0, 0), (16, 4, 8, 1, 0, 0), (16, 4, 4, 8193, 0, 0),
    (20, 4, 4, 1, 0, 0), (20, 4, 8, 1, 0, 0), (20, 4, 12, 1, 0, 0),
    # BTF-only and special types
    (24, 4, 8, 0, NO_PREALLOC, 0), (29, 4, 8, 0, NO_PREALLOC, 0), (26, 4, 8, 1, 0, 0),
    (33, 0, 0, 10, MMAPABLE, 0), (33, 0, 0, 10, 0, 0), (33, 0, 0, 0x100001, MMAPABLE, 0),
    (34, 4, 16, 1, 0, 0), (34, 4, 8, 1, 0, 0),
    (0, 4, 8, 1, 0, 0), (36, 4, 8, 1, 0, 0),
    # maps of maps without an inner map
    (12, 4, 4, 1, 0, 0), (13, 4, 4, 1, 0, 0),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", default="x86_64")
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()
    jobs = []
    for i, (t, ks, vs, mx, fl, un) in enumerate(CASES):
        jobs.append(f"mc{i}: --asm-text 'r0 = 0; exit' --type socket --log-level 0 --map m:{t}:{ks}:{vs}:{mx}:{fl}"
                    + (" --unpriv" if un else ""))
    if a.dry_run:
        print("\n".join(jobs))
        return
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(jobs) + "\n")
        path = f.name
    res = subprocess.run([sys.executable, os.path.join(ORACLE, "vm_oracle.py"), "--arch", a.arch, "--jobs", path, "--json"],
                         capture_output=True, text=True, check=True)
    os.unlink(path)
    by_name = {p["name"]: p for p in json.loads(res.stdout)["programs"]}
    out = [f"# Linux 7.3.4 {a.arch} (QEMU): BPF_MAP_CREATE, by scripts/record-map-create-goldens.py",
           "# TYPE KEY_SIZE VALUE_SIZE MAX_ENTRIES FLAGS root|unpriv => ok|ERRNO"]
    for i, (t, ks, vs, mx, fl, un) in enumerate(CASES):
        p = by_name[f"mc{i}"]
        got = "ok"
        for n in p.get("notes") or []:
            if n.startswith("map #0 create failed: "):
                got = n.split(": ", 1)[1]
        out.append(f"{t} {ks} {vs} {mx} {fl:#x} {'unpriv' if un else 'root'} => {got}")
    dst = os.path.join(ROOT, "expected", "linux-7.3", "map_create.txt" if a.arch == "x86_64" else f"map_create.{a.arch}.txt")
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"wrote {dst}: {len(CASES)} maps")


if __name__ == "__main__":
    main()

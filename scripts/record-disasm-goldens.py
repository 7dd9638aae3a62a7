#!/usr/bin/env python3
"""Records what a real Linux 7.3 kernel prints for every BPF instruction form.

  expected/linux-7.3/disasm/log.txt     "hex<TAB>text": the verifier log's form
                                         ("(bf) r6 = r10"), from the 7.3 level-2
                                         "Live regs before insn" listing
  expected/linux-7.3/disasm/xlated.txt  "hex<TAB>text": test_loader's xlated form,
                                         from the xlated dumps of accepted programs

The instructions are the llvm-mc-19 encodings of expected/isa/corpus.s (jump
offsets brought into range), plus forms LLVM 19 cannot write (load_acquire,
store_release) and calls, maps and subprograms. The kernel is booted under QEMU
with the oracle kit in ../shared/oracle (a reference instrument: this script
only runs it). Requires ../shared/oracle/setup.sh to have run.

  scripts/record-disasm-goldens.py [--arch x86_64]
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE = os.environ.get("BPF_ORACLE_DIR", os.path.join(ROOT, "..", "shared", "oracle"))


def ins(code, dst=0, src=0, off=0, imm=0):
    return struct.pack("<BBhi", code, dst | (src << 4), off, imm)


def corpus_insns():
    """The corpus encodings, made listable: jumps kept in range, and the
    registers jumps compare made unknown first, so 7.3's constant-branch
    folding leaves the comparisons as they are."""
    out = []
    for line in open(os.path.join(ROOT, "expected/isa/llvm-mc-19.txt")):
        if line.startswith("#") or not line.strip():
            continue
        _, hx = line.rstrip("\n").split("\t")
        out.append(bytes.fromhex(hx))
    alu, jumps = [], []
    for raw in out:
        code = raw[0]
        cls = code & 7
        if (raw[1] & 0xf) == 11 or (raw[1] >> 4) == 11:
            continue  # r11 (BPF_REG_PARAMS): "R11 is invalid" outside stack-arg programs
        if code in (0x8d, 0x95):  # callx: "unknown opcode 8d"; exit: only at the end
            continue
        if cls in (5, 6) and code not in (0x85, 0x95):
            jumps.append(raw)
        else:
            alu.append(raw)
    prog = [ins(0xbf, 6, 1)]  # r6 = ctx, for the skb loads
    prog += alu
    # unknown r1, r2, r3, r9 for the comparisons
    for r in (1, 2, 3, 9):
        prog += [ins(0x85, imm=7), ins(0xbf, r, 0)]
    for raw in jumps:
        code, regs, off, imm = struct.unpack("<BBhi", raw)
        if code in (0x05, 0x06):
            # unconditional: reached from a conditional jump around it, so
            # what follows stays reachable; back to that jump or fall through
            prog.append(ins(0x55, 1, off=1))
            back = (off if code == 0x05 else imm) < 0
            if code == 0x06:
                imm = -2 if back else 0
            else:
                off = -2 if back else 0
        else:
            off = 1 if off > 0 else (-1 if off < 0 else 0)
        prog.append(struct.pack("<BBhi", code, regs, off, imm))
    prog += [ins(0xb7, 0, imm=0), ins(0x95)]
    return b"".join(prog)


EXTRAS = """
r1 = 0
*(u64 *)(r10 - 8) = r1
*(u64 *)(r10 - 16) = r1
r2 = r10
.8byte 0x00000100fff8a2d3
.8byte 0x00000100fff0a2cb
.8byte 0x00000100fffca2c3
.8byte 0x00000100fff8a2db
.8byte 0x00000110fff82ad3
.8byte 0x00000110fff02acb
.8byte 0x00000110fffc2ac3
.8byte 0x00000110fff82adb
r1 = arr ll
r2 = r10
r2 += -4
call bpf_map_lookup_elem
r1 = arr__value ll
call bpf_get_prandom_u32
call bpf_ktime_get_ns
r1 = r10
r1 += -16
r2 = 0
r3 = 4
call bpf_iter_num_new
r1 = r10
r1 += -16
call bpf_iter_num_destroy
call sub
r2 = sub ll
r0 = 0
exit
sub:
r0 = 1
exit
"""


def run_oracle(arch, jobs):
    with tempfile.TemporaryDirectory() as d:
        jf = os.path.join(d, "jobs.txt")
        with open(jf, "w") as f:
            for name, opts in jobs:
                f.write(f"{name}: {opts}\n")
        r = subprocess.run([os.path.join(ORACLE, "vm_oracle.py"), "--arch", arch, "--jobs", jf,
                            "--json", "--jited", "none"], capture_output=True, text=True)
        try:
            return {p["name"]: p for p in json.loads(r.stdout)["programs"]}
        except ValueError:
            sys.exit(f"vm_oracle.py failed:\n{r.stderr[-2000:]}{r.stdout[-2000:]}")


LIVE = re.compile(r"^\s*(?:\d+\s+)?(\d+): [.0-9]{10} (.*?)(?:\s+; zext)?$")


def listing(prog, raw):
    """(hex, text) per insn of the level-2 listing; ld_imm64 keeps both slots."""
    text = {}
    for ln in prog.get("log", "").splitlines():
        m = LIVE.match(ln)
        if m:
            text.setdefault(int(m.group(1)), m.group(2).rstrip())
    out, i = [], 0
    while i * 8 < len(raw):
        n = 2 if raw[i * 8] == 0x18 else 1
        if i not in text:
            sys.exit(f"{prog['name']}: insn {i} not in the kernel's listing:\n" + prog.get("log", "")[-3000:])
        out.append((raw[i * 8:(i + n) * 8].hex(), text[i]))
        i += n
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", default="x86_64")
    a = ap.parse_args()
    cov = corpus_insns()
    with tempfile.TemporaryDirectory() as d:
        ex = os.path.join(d, "extras.s")
        open(ex, "w").write(EXTRAS)
        jobs = [
            ("corpus", f"--type socket_filter --log-level 2 --log-size 16777216 --hex {cov.hex()}"),
            ("extras", f"--type socket_filter --log-level 2 --map arr:array:4:8:1 --asm {ex}"),
            ("smp_id", "--type socket_filter --asm-text 'call bpf_get_smp_processor_id; r0 = 0; exit'"),
            ("unpriv", "--type socket_filter --unpriv --asm-text 'r1 = 0; *(u64 *)(r10 - 8) = r1; r0 = *(u64 *)(r10 - 8); if r0 != 0 goto +1; r0 = 0; exit'"),
        ]
        for f in sorted(os.listdir(os.path.join(ORACLE, "examples"))):
            if f.endswith(".s"):
                jobs.append((f"ex_{f[:-2]}", f"--asm {os.path.join(ORACLE, 'examples', f)}"))
        res = run_oracle(a.arch, jobs)
    release = next(iter(res.values())).get("kernel", {}).get("release", "7.3") if res else "7.3"
    log_pairs = listing(res["corpus"], cov)
    # extras: the insns as loaded, with map ld_imm64s as the kernel rewrote
    # them (the address it printed) before printing
    ext = res["extras"]
    raw = bytearray(bytes.fromhex("".join(x["hex"] for x in ext["input"]["insns"])))
    # (the oracle reports them before linking: map loads as plain ld_imm64
    # 0, kfunc calls without their BTF id)
    map_srcs = [1, 2]   # EXTRAS loads `arr`, then `arr__value`
    for h, t in listing(ext, bytes(raw)):
        b = bytearray(bytes.fromhex(h))
        if b[0] == 0x18 and t.split(" = ")[1] != "0x" + format(struct.unpack("<I", b[4:8])[0] | (struct.unpack("<I", b[12:16])[0] << 32), "x"):
            v = int(t.split(" = ")[1], 16)
            b[1] = (b[1] & 0x0f) | (map_srcs.pop(0) << 4)
            b[4:8] = struct.pack("<I", v & 0xffffffff)
            b[12:16] = struct.pack("<I", v >> 32)
        if b[0] == 0x85 and (b[1] >> 4) == 2:
            b[4:8] = struct.pack("<i", int(t.rsplit("#", 1)[1]))
        log_pairs.append((b.hex(), t))
    xl = []
    for name, p in res.items():
        if not p.get("accepted"):
            continue
        for x in p.get("xlated", {}).get("insns", []):
            xl.append((x["hex"], x["text"]))
    outdir = os.path.join(ROOT, "expected/linux-7.3/disasm")
    os.makedirs(outdir, exist_ok=True)
    hdr = f"# Recorded from Linux {release} ({a.arch}, QEMU) by scripts/record-disasm-goldens.py.\n"
    seen = set()
    with open(os.path.join(outdir, "log.txt"), "w") as f:
        f.write(hdr + "# hex (memory order; 32 digits for ld_imm64)<TAB>the verifier log's text\n")
        for h, t in log_pairs:
            if h and (h, t) not in seen:
                seen.add((h, t))
                f.write(f"{h}\t{t}\n")
    seen = set()
    with open(os.path.join(outdir, "xlated.txt"), "w") as f:
        f.write(hdr + "# hex of the xlated insn<TAB>test_loader's xlated text\n")
        for h, t in xl:
            if (h, t) not in seen:
                seen.add((h, t))
                f.write(f"{h}\t{t}\n")
    print(f"log forms: {len([1 for h, _ in log_pairs if h])}, xlated forms: {len(xl)}; "
          f"accepted: {[n for n, p in res.items() if p.get('accepted')]}; "
          f"rejected: {[(n, p.get('errno_name')) for n, p in res.items() if not p.get('accepted')]}")
    if not log_pairs or not res["extras"].get("log"):
        print(res["extras"].get("log", "")[-2000:])


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Records 7.3's arm64 JIT images of the programs in tests/jit_forms/arm64/
(instruction forms the suites of progs/ do not reach: every ALU/JMP/atomic
form, large offsets, tail calls, callbacks, LL/SC atomics) into
expected/jit/arm64-forms/<name>.txt, in the golden format (xlated_hex with
map ids as indexes, jited_hex, jited), for tests/jit_arm64.rs.

Ground truth comes from the oracle kit (../shared/oracle/vm_oracle.py), one
QEMU boot per CPU model:

  scripts/record-arm64-jit-forms.py            # both boots, then write
  scripts/record-arm64-jit-forms.py --from-json lse.json llsc.json

The jobs files name their CPU on the first line (`# cpu: ...`).
"""
import json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FORMS = os.path.join(ROOT, "tests", "jit_forms", "arm64")
OUT = os.path.join(ROOT, "expected", "jit", "arm64-forms")
ORACLE = os.environ.get("BPF_ORACLE", os.path.join(ROOT, "..", "shared", "oracle", "vm_oracle.py"))


def run(jobs):
    cpu = open(jobs).readline().split("# cpu:", 1)[1].strip()
    out = subprocess.run([ORACLE, "--arch", "arm64", "--cpu", cpu, "--jobs", jobs, "--json"], check=True, capture_output=True, text=True, cwd=FORMS)
    return json.loads(out.stdout)


def slots(hexes):
    for h in hexes:
        for k in range(0, len(h), 16):
            yield h[k:k + 16]


def write(doc):
    cpu = doc["meta"]["qemu_cpu"]
    for p in doc["programs"]:
        if not p.get("accepted"):
            print(f"{p['name']}: rejected ({p.get('errno_name')}), not written", file=sys.stderr)
            continue
        ids = {m["id"]: k for k, m in enumerate(p["maps"])}
        xl = []
        words = list(slots(i["hex"] for i in p["xlated"]["insns"]))
        k = 0
        while k < len(words):
            w = bytearray.fromhex(words[k])
            if w[0] == 0x18 and (w[1] >> 4) in (1, 2):
                mid = int.from_bytes(w[4:8], "little")
                if mid in ids:
                    w[4:8] = ids[mid].to_bytes(4, "little")
                xl += [w.hex(), words[k + 1]]
                k += 2
                continue
            xl.append(w.hex())
            k += 1
        j = p["jited"]
        image, funcs, off = bytes.fromhex(j["hex"]), [], 0
        for n in j["func_lens"]:
            funcs.append(image[off:off + n].hex())
            off += n
        lines = [f"# program: jit_forms/{p['name']}", f"# kernel: {p['kernel']}", "# arch: arm64", f"# backend: vm (QEMU TCG, -cpu {cpu})",
                 "== result", "accepted", "== xlated"] + p["xlated"]["text"].rstrip("\n").split("\n") + ["== xlated_hex"] + xl + ["== jited_hex"]
        lines += [f"func #{i}: {h}" for i, h in enumerate(funcs)] + ["== jited"] + j["tl"].split("\n")[:-1]
        with open(os.path.join(OUT, p["name"] + ".txt"), "w") as f:
            f.write("\n".join(lines) + "\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    if sys.argv[1:2] == ["--from-json"]:
        docs = [json.load(open(a)) for a in sys.argv[2:]]
    else:
        docs = [run(os.path.join(FORMS, f)) for f in sorted(os.listdir(FORMS)) if f.endswith(".jobs")]
    for d in docs:
        write(d)


if __name__ == "__main__":
    main()

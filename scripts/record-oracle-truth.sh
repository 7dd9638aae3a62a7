#!/bin/sh
# Records what real kernels report for tests/oracle_progs/*.s, with the oracle
# kit (../shared/oracle or $BPF_ORACLE_DIR), into expected/oracle/*.json: the
# ground truth tests/kernel_backend.rs and tests/vm_backend.rs compare the
# kernel and vm backends against. Run as root from the repository root:
#
#   scripts/record-oracle-truth.sh            # live kernel + 7.3 x86_64 + 7.3 arm64
#   scripts/record-oracle-truth.sh live       # only the running kernel
#   scripts/record-oracle-truth.sh x86_64     # only one VM arch
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
oracle=${BPF_ORACLE_DIR:-$root/../shared/oracle}
progs=$root/tests/oracle_progs
out=$root/expected/oracle
targets=${*:-live x86_64 arm64}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$oracle/oracle.py" ] || { echo "no oracle kit at $oracle (set BPF_ORACLE_DIR)" >&2; exit 1; }
mkdir -p "$out"

for t in $targets; do
    case $t in
    live)
        # the oracle exits non-zero when a program is rejected; that is data here
        "$oracle/oracle.py" --dir "$progs" --json --jited none >"$tmp/$t.json" || true
        ;;
    x86_64|arm64)
        "$oracle/vm_oracle.py" --arch "$t" --dir "$progs" --json --jited none >"$tmp/$t.json" || true
        ;;
    *)
        echo "unknown target '$t' (live, x86_64, arm64)" >&2
        exit 1
        ;;
    esac
    python3 - "$tmp/$t.json" "$out" "$t" <<'PY'
import json, sys
src, out, target = sys.argv[1:]
d = json.load(open(src))
meta = d["meta"]
rel = meta["release"]
arch = d["programs"][0]["kernel"]["arch"] if d["programs"] else target
progs = []
for p in d["programs"]:
    tr = p.get("test_run") or {}
    xl = p.get("xlated") or {}
    jt = p.get("jited") or {}
    progs.append({
        "name": p["name"],
        "accepted": p["accepted"],
        "errno": p["errno"],
        "log_level": p["log_level"],
        "log": p.get("log", ""),
        "verified_insns": p.get("verified_insns"),
        "map_ids": p.get("map_ids") or [m.get("id") for m in p.get("maps", [])],
        "xlated_text": xl.get("text", ""),
        "xlated_hex": [i["hex"] for i in xl.get("insns", [])],
        "jited_hex": jt.get("hex", ""),
        "func_lens": jt.get("func_lens", []),
        "retval": tr.get("retval"),
        "test_run_errno": tr.get("errno"),
    })
doc = {
    "recorded_with": "scripts/record-oracle-truth.sh (oracle kit %s)" % ("oracle.py" if target == "live" else "vm_oracle.py --arch " + target),
    "backend": meta["backend"],
    "release": rel,
    "arch": arch,
    "qemu_cpu": meta.get("qemu_cpu"),
    "programs": progs,
}
name = ("live-" if target == "live" else "vm-") + arch + ".json"
with open(out + "/" + name, "w") as f:
    json.dump(doc, f, indent=1, sort_keys=False)
    f.write("\n")
print("wrote", out + "/" + name, "(%s, %d programs)" % (rel, len(progs)))
PY
done

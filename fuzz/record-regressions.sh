#!/bin/sh
# Records 7.3's answers for tests/fuzz_regressions/*.bin (verify_raw inputs:
# four config bytes, then insns) in one QEMU boot: the config bytes become
# the oracle kit's load options the way fuzz_targets/common.rs reads them.
# Keeps verdict, errno, verified_insns and the log's last lines in
# tests/fuzz_regressions/7.3-x86_64.json.
#   sh fuzz/record-regressions.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
oracle=${BPF_ORACLE_DIR:-$root/../shared/oracle}
[ -x "$oracle/vm_oracle.py" ] || oracle=/work/shared/oracle
dir=$(mktemp -d)
python3 - "$root/tests/fuzz_regressions" "$dir" <<'PY'
import glob, os, sys
src, out = sys.argv[1], sys.argv[2]
TYPES = [1, 2, 3, 4, 5, 6, 8, 17, 26, 30, 31, 0x7fff]   # common.rs PROG_TYPES
FLAGS = ["strict_alignment", "any_alignment", "rnd_hi32", "state_freq", "sleepable", "xdp_has_frags", None, "reg_invariants"]
jobs, names = [], []
for path in sorted(glob.glob(f"{src}/*.bin")):
    data = open(path, "rb").read()
    name = os.path.basename(path)[:-4]
    c = data[:4]
    if c[3] & 1:
        sys.exit(f"{name}: an arm64 input; record it with --arch arm64")
    level = (c[1] & 0x0F) | (0x100 if c[1] == 0xFF else 0)
    hi = c[1] >> 4
    if level == 0 and hi != 15:
        size = 0
    else:
        size = {10: 1, 11: 16, 12: 128, 13: 1000, 14: 0, 15: 0xFFFFFFFF}.get(hi, 2 << 20)
    if c[2] & 0x40 or (c[3] >> 1) & 3 == 3:
        sys.exit(f"{name}: an undefined flag or CAP_BPF-only caps: not expressible with the oracle kit")
    flags = ",".join(f for i, f in enumerate(FLAGS) if f and c[2] >> i & 1)
    body = data[4:][: (len(data) - 4) // 8 * 8]
    open(f"{out}/{name}.bin", "wb").write(body)
    opt = f"--bin {out}/{name}.bin -t {TYPES[c[0] % len(TYPES)]} --no-btf --log-level {level} --log-size {size} --test-run none"
    if flags:
        opt += f" --flags {flags}"
    if (c[3] >> 1) & 3 == 2:
        opt += " --unpriv"
    if c[3] & 0x80:
        opt += " --license Proprietary"
    # the job name becomes the program's name, which the kernel refuses
    # (EINVAL) unless it is [A-Za-z0-9_.]: the file name goes in a comment
    jobs.append(f"r{len(jobs)}: {opt}")
    names.append(name)
open(f"{out}/jobs.txt", "w").write("\n".join(jobs) + "\n")
open(f"{out}/names.txt", "w").write("\n".join(names) + "\n")
PY
"$oracle/vm_oracle.py" --arch x86_64 --mem 4096 --jobs "$dir/jobs.txt" --json --jited none --timeout 1800 > "$dir/out.json" || [ $? -eq 1 ]  # 1: some load failed, which is the point
python3 - "$dir/out.json" "$root/tests/fuzz_regressions/7.3-x86_64.json" "$dir/names.txt" <<'PY'
import json, sys
out = {}
names = open(sys.argv[3]).read().split()
for p in json.load(open(sys.argv[1]))["programs"]:
    p["name"] = names[int(p["name"][1:])]
    if str(p.get("errno_name") or "").startswith("NO RESULT"):
        sys.exit(f"{p['name']}: no result from the guest")
    log = p.get("log") or ""
    out[p["name"]] = {"accepted": bool(p.get("accepted")), "errno": p.get("errno") or 0,
                      "verified_insns": p.get("verified_insns") or 0, "log_true_size": p.get("log_true_size") or 0,
                      "log_tail": log.splitlines()[-8:]}
json.dump(out, open(sys.argv[2], "w"), indent=1, sort_keys=True)
open(sys.argv[2], "a").write("\n")
print(f"{len(out)} regressions recorded")
PY
rm -rf "$dir"

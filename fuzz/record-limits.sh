#!/bin/sh
# Records 7.3's answers for tests/limits.rs: the programs are written by the
# test itself, loaded in one QEMU boot per arch by the oracle kit, and the
# fields the test compares are kept in tests/limits/7.3-<arch>.json.
#   sh fuzz/record-limits.sh x86_64|arm64 [--light] [CASE...]
# --light leaves out the 1M-insn cases; CASEs record only those (merged
# into the file's other cases).
set -eu
arch=${1:-x86_64}
shift || true
light=
if [ "${1:-}" = --light ]; then light=1; shift; fi
root=$(cd "$(dirname "$0")/.." && pwd)
oracle=${BPF_ORACLE_DIR:-$root/../shared/oracle}
[ -x "$oracle/vm_oracle.py" ] || oracle=/work/shared/oracle
dir=$(mktemp -d)
cd "$root"
LIMITS_DUMP=$dir LIMITS_LIGHT=$light cargo test -q --test limits -- --ignored dump >/dev/null
# the 1M-insn loads last, in a guest with room for their aux data
(grep -v '^priv_100000' "$dir/jobs.txt"; grep '^priv_100000' "$dir/jobs.txt" || true) > "$dir/jobs-ordered.txt"
if [ $# -gt 0 ]; then
  pat=$(printf '^%s:|' "$@"); grep -E "${pat%|}" "$dir/jobs-ordered.txt" > "$dir/jobs-some.txt"
  mv "$dir/jobs-some.txt" "$dir/jobs-ordered.txt"
fi
"$oracle/vm_oracle.py" --arch "$arch" --mem 6144 --jobs "$dir/jobs-ordered.txt" --json --jited none --timeout 2400 > "$dir/out.json" || [ $? -eq 1 ]  # 1: some load failed, which is the point
mkdir -p tests/limits
python3 - "$dir/out.json" "tests/limits/7.3-$arch.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
import os
out = json.load(open(sys.argv[2])) if os.path.exists(sys.argv[2]) else {}
for p in doc["programs"]:
    if str(p.get("errno_name") or "").startswith("NO RESULT"):
        sys.exit(f"{p['name']}: no result from the guest")
    out[p["name"]] = {k: p.get(k) or (False if k == "accepted" else "" if k == "log" else 0)
                      for k in ("accepted", "errno", "verified_insns", "log_true_size", "log")}
json.dump(out, open(sys.argv[2], "w"), indent=1, sort_keys=True)
open(sys.argv[2], "a").write("\n")
print(f"{len(out)} cases recorded into {sys.argv[2]}")
PY
rm -rf "$dir"

#!/bin/sh
# Records expected/exec/linux-7.3-{x86_64,arm64}.txt: what Linux 7.3 under
# QEMU (the vm backend, one boot per arch) returns for the test runs of
# tests/exec.rs's corpus (tests/exec/*.s and the seeded random programs).
# Needs what `scripts/setup-vm.sh` installs. Rejected programs are listed
# on stderr: fix them, the corpus is meant to load. `--check` compares with
# the checked-in goldens instead of writing them (a drift check).
set -e
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--check" ]; then
  export BPF_SELFTEST_EXEC_CHECK=1
fi
exec cargo test -q --test exec -- --ignored --exact record_exec_goldens --nocapture

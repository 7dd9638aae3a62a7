#!/bin/sh
# Records expected/exec/linux-7.3-{x86_64,arm64}.txt: what Linux 7.3 under
# QEMU (the vm backend, one boot per arch) returns for the test runs of
# tests/exec.rs's corpus (tests/exec/*.s and the seeded random programs).
# Needs what `scripts/setup-vm.sh` installs. Rejected programs are listed
# on stderr: fix them, the corpus is meant to load.
set -e
cd "$(dirname "$0")/.."
exec cargo test -q --test exec -- --ignored --exact record_exec_goldens --nocapture

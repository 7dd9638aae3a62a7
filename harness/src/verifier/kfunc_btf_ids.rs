//! vmlinux BTF ids of kfuncs in the Debian 7.3.4 kernels, per arch, as the
//! 7.3 verifier prints them (`call bpf_rcu_read_lock#71537`). Recorded from
//! real kernels by `scripts/record-kfunc-btf-ids.py`; a kfunc missing here
//! makes the model say it cannot load the program.

use crate::target::Arch;

/// `(name, btf id)` for `arch`; empty for arches never recorded.
pub fn table(arch: Arch) -> &'static [(&'static str, u32)] {
    match arch {
        Arch::X86_64 => X86_64,
        Arch::Arm64 => ARM64,
        _ => &[],
    }
}

/// The BTF id of `name` on `arch`.
pub fn btf_id(arch: Arch, name: &str) -> Option<u32> {
    table(arch).iter().find(|(n, _)| *n == name).map(|(_, id)| *id)
}

// BEGIN GENERATED (scripts/record-kfunc-btf-ids.py)
const X86_64: &[(&str, u32)] = &[("bpf_rcu_read_lock", 71537), ("bpf_rcu_read_unlock", 71538)];
const ARM64: &[(&str, u32)] = &[];
// END GENERATED

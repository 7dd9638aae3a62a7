//! vmlinux BTF ids of kfuncs in the Debian 7.3.4 kernels, per arch, as the
//! 7.3 verifier prints them (`call bpf_rcu_read_lock#71537`): the tables of
//! `bpf_isa::kfunc_btf_ids`, recorded from the 7.3 images. A name missing
//! there is not a kfunc of 7.3.

use bpf_isa::kfunc_btf_ids::{ARM64, X86_64};

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

//! BPF arenas as the verifier and the JITs see them (`kernel/bpf/arena.c`):
//! the arena's two bases. `kern_vm_start` is a vmalloc address of the
//! running kernel, which comparisons with a kernel mask; the model's is the
//! one 7.3 gave its first arena after a `nokaslr` boot, so that the arm64
//! JIT's `mov` sequence for it has the same length.

use super::env::VerifierEnv;
use crate::target::Arch;

/// `bpf_arena_get_kern_vm_start` of the model's arena on `arch`: the start
/// of its 4 GiB + guard vmalloc area plus half the guard (`GUARD_SZ / 2`).
pub fn kern_vm_start(arch: Arch) -> u64 {
    match arch {
        Arch::Arm64 => 0xffff_8000_8380_8000,
        _ => 0xffff_c900_0180_8000,
    }
}

/// What the dump of an arena program loses and its JIT needs: the arena's
/// addresses and the kernel-internal modes of its accesses
/// (`bpf_insn_prepare_dump` shows `BPF_PROBE_MEM32` as `BPF_MEM`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArenaJit {
    pub kern_vm_start: u64,
    pub user_vm_start: u64,
    /// (index into the xlated program, the code the JIT gets there).
    pub codes: Vec<(usize, u8)>,
}

/// The program's arena map (`prog->aux->arena`), if it uses one.
pub fn prog_arena<'e>(env: &'e VerifierEnv<'_>) -> Option<&'e crate::map::MapDef> {
    env.used_maps.iter().map(|&m| &env.input.maps[m].def).find(|d| d.map_type == crate::map::types::BPF_MAP_TYPE_ARENA)
}

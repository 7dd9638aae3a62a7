//! BPF arenas as the verifier and the JITs see them (`kernel/bpf/arena.c`):
//! the arena's two bases. `kern_vm_start` is a vmalloc address of the
//! running kernel, which the goldens' comparisons mask; the model's is the
//! one 7.3 gave the oracle's first arena after a `nokaslr` boot, so that
//! the arm64 JIT's `mov` sequence for it has the same length.

use super::env::VerifierEnv;
use crate::jit::ArenaJit;
use crate::target::Arch;

/// `bpf_arena_get_kern_vm_start` of the model's arena on `arch`: the start
/// of its 4 GiB + guard vmalloc area plus half the guard (`GUARD_SZ / 2`).
pub fn kern_vm_start(arch: Arch) -> u64 {
    match arch {
        Arch::Arm64 => 0xffff_8000_8380_8000,
        _ => 0xffff_c900_0180_8000,
    }
}

/// The arena of an accepted program for its JIT: both bases and the
/// codes of the loads and stores the dump (`dumped`) shows differently from
/// what the JIT gets (`BPF_PROBE_MEM32` accesses; LDX, ST, STX).
pub fn arena_jit(env: &VerifierEnv<'_>, dumped: &[bpf_isa::Insn]) -> Option<ArenaJit> {
    let def = crate::fixups::arena::prog_arena(env)?;
    let codes = crate::fixups::dump_hidden_modes(env, dumped);
    Some(ArenaJit { kern_vm_start: kern_vm_start(env.input.arch), user_vm_start: super::map_create::loader_map_extra(def), codes })
}

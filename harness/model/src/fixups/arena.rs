//! The arena parts of the rewrites (`fixups.c`): address space casts that
//! become plain 32-bit moves, and the kernel-internal mode of sign-extending
//! arena loads. The accesses themselves become `BPF_PROBE_MEM32` in
//! `bpf_convert_ctx_accesses` (see `ctx_access`).

use bpf_isa::Insn;
use bpf_isa::op::*;

use crate::map::flags::BPF_F_NO_USER_CONV;

use crate::verifier::env::VerifierEnv;

pub use crate::verifier::arena::prog_arena;

/// `is_addr_space_cast32`: a cast the fixups turn into `wX = wY`. From
/// as(1) it is the arena offset itself; to as(1) only when the arena has
/// no user addresses (`BPF_F_NO_USER_CONV`), else the JIT builds one.
pub fn is_addr_space_cast32(env: &VerifierEnv<'_>, insn: &Insn) -> bool {
    if insn.code != BPF_ALU64 | BPF_MOV | BPF_X || insn.off != BPF_ADDR_SPACE_CAST {
        return false;
    }
    match insn.imm {
        1 => true,
        0x1_0000 => prog_arena(env).is_some_and(|a| a.map_flags & BPF_F_NO_USER_CONV != 0),
        _ => false,
    }
}

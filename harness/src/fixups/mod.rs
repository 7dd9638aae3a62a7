//! What 7.3 does to a program after the main pass accepted it (`bpf_check`
//! from `skip_full_check:` on, kernel/bpf/fixups.c): every rewrite is a pass
//! that queues patches on one engine ([`patch`]), in the kernel's order.

pub mod calls;
pub mod ctx_access;
pub mod misc;
pub mod patch;
pub mod zext;

use bpf_isa::Insn;

use crate::verifier::env::VerifierEnv;
use crate::verifier::{Fail, subprogs};

/// The rewrites of an accepted program, in `bpf_check`'s order.
pub fn bpf_fixups(env: &mut VerifierEnv<'_>) -> Result<(), Fail> {
    // TODO(fixups core): bpf_remove_fastcall_spills_fills comes first (it may lower the stack depth)
    subprogs::check_max_stack_depth(env)?;
    // TODO(fixups core): bpf_optimize_bpf_loop; dead code (privileged) or sanitize_dead_code
    ctx_access::bpf_convert_ctx_accesses(env)?;
    misc::bpf_do_misc_fixups(env)?;
    // TODO(fixups core): bpf_opt_subreg_zext_lo32_rnd_hi32, bpf_fixup_call_args
    Err(Fail::unsupported("bpf_fixups", "the rewrites after verification (fixups) are not all modelled yet"))
}

/// `bpf_insn_def32(prog, &insns[i]) >= 0`: what `adjust_insn_aux_data`
/// stores as a patched insn's `zext_dst`.
pub fn insn_def32(insns: &[Insn], i: usize) -> bool {
    zext::bpf_insn_def32(&insns[i]).is_some()
}

//! `bpf_optimize_bpf_loop`: `bpf_loop` calls whose callback and flags the
//! main pass found fit (`loop_inline_state`) are replaced by an inline loop
//! (`inline_bpf_loop`) with three stack slots for R6-R8.

use crate::verifier::Fail;
use crate::verifier::env::VerifierEnv;
use crate::verifier::helpers::func;

/// The pass. Inlining is not modelled yet: a call fit for it leaves the
/// load undecided.
pub fn bpf_optimize_bpf_loop(env: &mut VerifierEnv<'_>) -> Result<(), Fail> {
    for (i, insn) in env.insns.iter().enumerate() {
        let fit = env.pass_aux.get(i).is_some_and(|a| a.loop_inline.fit_for_inline);
        if insn.is_helper_call() && insn.imm == func::LOOP && fit {
            return Err(Fail::unsupported("bpf_optimize_bpf_loop", &format!("inlining the bpf_loop call at insn {i} is not modelled yet")));
        }
    }
    Ok(())
}

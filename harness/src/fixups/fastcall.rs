//! `bpf_remove_fastcall_spills_fills`: the spill/fill pairs around a call
//! that `mark_fastcall_patterns` recognised become no-ops (removed with the
//! other nops) and the subprogram's stack shrinks.

use bpf_isa::op::*;

use crate::verifier::Fail;
use crate::verifier::env::VerifierEnv;
use crate::verifier::liveness::bpf_get_call_summary;

/// The pass. `mark_fastcall_patterns` is not modelled yet: a fastcall call
/// with a spill of a caller-saved register right before it (the shape of a
/// pattern) leaves the load undecided; without one there is nothing to do.
pub fn bpf_remove_fastcall_spills_fills(env: &mut VerifierEnv<'_>) -> Result<(), Fail> {
    for i in 1..env.insns.len() {
        let insn = env.insns[i];
        if !(insn.is_helper_call() || (insn.code == BPF_JMP | BPF_CALL && insn.src == BPF_PSEUDO_KFUNC_CALL)) {
            continue;
        }
        let fastcall = matches!(bpf_get_call_summary(env, &insn), Ok(Some(s)) if s.fastcall);
        let prev = env.insns[i - 1];
        let spill = prev.code == BPF_STX | BPF_MEM | BPF_DW && prev.dst == 10 && prev.src <= 5;
        if fastcall && spill {
            return Err(Fail::unsupported("bpf_remove_fastcall_spills_fills", &format!("the fastcall pattern around insn {i} is not modelled yet")));
        }
    }
    Ok(())
}

//! `bpf_do_misc_fixups`: div/mod guards, LD_ABS/LD_IND, tail calls, pointer
//! ALU sanitation, may_goto, address space casts, and the rewrite of every
//! helper and kfunc call ([`super::calls`]).

use bpf_isa::op::*;

use crate::verifier::Fail;
use crate::verifier::env::VerifierEnv;

/// The pass. Until it is modelled, any insn it would rewrite makes the
/// load undecided.
pub fn bpf_do_misc_fixups(env: &mut VerifierEnv<'_>) -> Result<(), Fail> {
    for (i, insn) in env.insns.iter().enumerate() {
        let class = insn.code & 0x07;
        let op = insn.code & 0xf0;
        let alu = class == BPF_ALU || class == BPF_ALU64;
        let rewritten = (alu && matches!(op, BPF_DIV | BPF_MOD))
            || (class == BPF_LD && matches!(insn.code & 0xe0, BPF_ABS | BPF_IND))
            || (class == BPF_JMP && matches!(op, BPF_CALL | BPF_JCOND))
            || (insn.code == BPF_ALU64 | BPF_MOV | BPF_X && insn.off == BPF_ADDR_SPACE_CAST)
            || env.pass_aux.get(i).is_some_and(|a| a.alu_state != 0);
        if rewritten {
            return Err(Fail::unsupported("bpf_do_misc_fixups", &format!("insn {i} needs a rewrite that is not modelled yet")));
        }
    }
    Ok(())
}

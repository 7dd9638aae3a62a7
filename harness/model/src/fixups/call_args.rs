//! `bpf_fixup_call_args` with the JIT (`bpf_jit_subprogs` / `jit_subprogs`):
//! what the program keeps after its subprograms were JITed, the form the
//! xlated dump starts from. The machine code is the JIT modules' business;
//! here only what `jit_subprogs` leaves in the insns: a pseudo call keeps
//! its pc-relative imm and gets the callee's subprogram index in `off`; a
//! pseudo-func `ld_imm64` keeps its pc-relative imm, the index goes to the
//! second slot's imm.
//!
//! Every 7.3 arch the model targets has an eBPF JIT (`jit_requested`), so
//! the interpreter's fallback (`BPF_CALL_ARGS`) is not modelled.

use bpf_isa::op::*;

use crate::verifier::Fail;
use crate::verifier::env::VerifierEnv;

/// The pass.
pub fn bpf_fixup_call_args(env: &mut VerifierEnv<'_>) -> Result<(), Fail> {
    // bpf_jit_subprogs: nothing to split with one function
    if env.subprog_cnt <= 1 {
        return Ok(());
    }
    for i in 0..env.insns.len() {
        let insn = env.insns[i];
        let pseudo_func = insn.code == BPF_LD | BPF_IMM | BPF_DW && insn.src == BPF_PSEUDO_FUNC;
        let pseudo_call = insn.code == BPF_JMP | BPF_CALL && insn.src == BPF_PSEUDO_CALL;
        if !pseudo_func && !pseudo_call {
            continue;
        }
        let target = i as i64 + insn.imm as i64 + 1;
        let subprog = usize::try_from(target)
            .ok()
            .and_then(|t| env.bpf_find_subprog(t))
            .ok_or_else(|| Fail::unsupported("jit_subprogs", &format!("no program to jit at insn {target} (a verifier bug)")))?;
        if pseudo_func {
            env.insns[i].off = 0;
            if let Some(next) = env.insns.get_mut(i + 1) {
                next.imm = subprog as i32;
            }
        } else {
            env.insns[i].off = subprog as i16;
        }
    }
    Ok(())
}

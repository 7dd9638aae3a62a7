//! `bpf_convert_ctx_accesses`: loads and stores through ctx (and the other
//! pointer types the kernel converts) rewritten to the real kernel
//! structures, Spectre v4 barriers after stores, prologue and epilogue.

use crate::verifier::Fail;
use crate::verifier::env::VerifierEnv;
use crate::verifier::reg::{PTR_TO_STACK, SCALAR_VALUE, base_type};

/// The pass. Until it is modelled, any insn it would rewrite makes the
/// load undecided.
pub fn bpf_convert_ctx_accesses(env: &mut VerifierEnv<'_>) -> Result<(), Fail> {
    for (i, a) in env.pass_aux.iter().enumerate() {
        let t = base_type(a.ptr_type);
        let converted = a.ptr_type != 0 && t != PTR_TO_STACK && t != SCALAR_VALUE && is_mem_access(&env.insns[i]);
        if converted || a.nospec || a.nospec_result {
            return Err(Fail::unsupported("bpf_convert_ctx_accesses", &format!("insn {i} needs a rewrite that is not modelled yet")));
        }
    }
    Ok(())
}

fn is_mem_access(insn: &bpf_isa::Insn) -> bool {
    use bpf_isa::op::*;
    matches!(insn.code & 0x07, BPF_LDX | BPF_STX | BPF_ST)
}

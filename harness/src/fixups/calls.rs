//! The rewrite of a helper or kfunc call by `bpf_do_misc_fixups`: inlined
//! map lookups (`map_gen_lookup`), direct map ops, helpers the kernel or
//! the JIT inlines, kfunc fixups and inlining (`bpf_iter_num_*`), and the
//! call's imm turned into the function's address.

use bpf_isa::Insn;

use crate::verifier::Fail;
use crate::verifier::env::VerifierEnv;

/// What replaces the helper or kfunc call at `idx` (`None`: it stays as
/// it is).
pub fn fixup_call(env: &mut VerifierEnv<'_>, idx: usize) -> Result<Option<Vec<Insn>>, Fail> {
    let _ = env;
    Err(Fail::unsupported("bpf_do_misc_fixups", &format!("the call at insn {idx} needs a rewrite that is not modelled yet")))
}

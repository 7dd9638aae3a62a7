//! The program BTF's `func_info` against the program (`kernel/bpf/check_btf.c`):
//! `bpf_prepare_btf_info` before subprograms are discovered, and
//! `bpf_check_btf_info` after. Loaders here give no `line_info` and no
//! CO-RE relocations; the prototypes are read where calls and global
//! functions are checked ([`super::btf_args`]).

use super::env::VerifierEnv;
use super::errno::EINVAL;
use super::{Fail, PResult};

/// `check_abnormal_return`: without BTF, subprograms may not tail-call or
/// use `LD_ABS` (their hidden exits need the return type).
fn check_abnormal_return(env: &mut VerifierEnv<'_>) -> PResult<()> {
    for i in 1..env.subprog_cnt {
        if env.subprog_info[i].has_ld_abs {
            env.verbose("LD_ABS is not allowed in subprogs without BTF\n");
            return Err(Fail::Errno(EINVAL));
        }
        if env.subprog_info[i].has_tail_call {
            env.verbose("tail_call is not allowed in subprogs without BTF\n");
            return Err(Fail::Errno(EINVAL));
        }
    }
    Ok(())
}

/// `bpf_prepare_btf_info` / `prepare_btf_func`: the records are in
/// increasing `insn_off` order, starting at 0.
pub fn bpf_prepare_btf_info(env: &mut VerifierEnv<'_>) -> PResult<()> {
    let Some(recs) = env.input.func_info.as_ref().filter(|r| !r.is_empty()) else {
        return check_abnormal_return(env);
    };
    let recs = recs.clone();
    let mut prev = 0u32;
    for (i, r) in recs.iter().enumerate() {
        if i == 0 {
            if r.insn_off != 0 {
                env.verbose(&format!("nonzero insn_off {} for the first func info record", r.insn_off));
                return Err(Fail::Errno(EINVAL));
            }
        } else if r.insn_off <= prev {
            env.verbose(&format!("same or smaller insn offset ({}) than previous func info record ({prev})", r.insn_off));
            return Err(Fail::Errno(EINVAL));
        }
        prev = r.insn_off;
    }
    env.func_info = Some(recs);
    Ok(())
}

/// `bpf_check_btf_info` / `check_btf_func`: one record per subprogram, at
/// its start; names the subprograms.
pub fn bpf_check_btf_info(env: &mut VerifierEnv<'_>) -> PResult<()> {
    let Some(recs) = env.func_info.clone() else {
        return check_abnormal_return(env);
    };
    if recs.len() != env.subprog_cnt {
        env.verbose("number of funcs in func_info doesn't match number of subprogs\n");
        return Err(Fail::Errno(EINVAL));
    }
    for (i, r) in recs.iter().enumerate() {
        if env.subprog_info[i].start as u64 != r.insn_off as u64 {
            env.verbose("func_info BTF section doesn't match subprog layout in BPF program\n");
            return Err(Fail::Errno(EINVAL));
        }
        env.subprog_info[i].name = Some(r.name.clone());
    }
    env.func_info_global = Some(recs.iter().map(|r| r.global).collect());
    Ok(())
}

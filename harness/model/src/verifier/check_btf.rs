//! The program BTF's `func_info` against the program (`kernel/bpf/check_btf.c`):
//! `bpf_prepare_btf_info` before subprograms are discovered, and
//! `bpf_check_btf_info` after, with the `line_info` checks
//! (`check_btf_line`). Loaders here give no CO-RE relocations to the
//! kernel; the prototypes are read where calls and global functions are
//! checked ([`super::btf_args`]).

use super::env::VerifierEnv;
use super::errno::{E2BIG, EINVAL};
use super::linfo::{BPF_LINE_INFO_SIZE, BpfLineInfo};
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
    check_btf_func(env)?;
    check_btf_line(env)
}

/// `check_btf_func`.
fn check_btf_func(env: &mut VerifierEnv<'_>) -> PResult<()> {
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
        // the hidden exits of LD_ABS and tail calls return a scalar
        if i > 0 && !btf_func_returns_scalar(env, r.type_id) {
            if env.subprog_info[i].has_ld_abs {
                env.verbose("LD_ABS is only allowed in functions that return 'int'.\n");
                return Err(Fail::Errno(EINVAL));
            }
            if env.subprog_info[i].has_tail_call {
                env.verbose("tail_call is only allowed in functions that return 'int'.\n");
                return Err(Fail::Errno(EINVAL));
            }
        }
        env.subprog_info[i].name = Some(r.name.clone());
    }
    env.func_info_global = Some(recs.iter().map(|r| r.global).collect());
    Ok(())
}

/// `check_btf_func`'s `scalar_return`: the `FUNC`'s prototype returns an
/// integer of at most 8 bytes or an enum (`btf_type_is_small_int`,
/// `btf_is_any_enum`). A record without BTF (`type_id` 0) stands for an
/// `int` prototype.
fn btf_func_returns_scalar(env: &VerifierEnv<'_>, type_id: u32) -> bool {
    use crate::btf::{BTF_KIND_ENUM, BTF_KIND_ENUM64, BTF_KIND_FUNC, BTF_KIND_FUNC_PROTO, BTF_KIND_INT};
    let Some(btf) = env.input.prog_btf.as_deref().filter(|_| type_id != 0) else { return true };
    let Some(f) = btf.type_by_id(type_id).filter(|t| t.kind == BTF_KIND_FUNC) else { return true };
    let Some(proto) = btf.type_by_id(f.size_or_type).filter(|t| t.kind == BTF_KIND_FUNC_PROTO) else { return true };
    let ret = super::btf_args::skip_modifiers(btf, proto.size_or_type);
    btf.type_by_id(ret).is_some_and(|t| (t.kind == BTF_KIND_INT && t.size_or_type <= 8) || t.kind == BTF_KIND_ENUM || t.kind == BTF_KIND_ENUM64)
}

/// `MIN_BPF_LINEINFO_SIZE`: up to and including `line_col`.
const MIN_BPF_LINEINFO_SIZE: u32 = 16;
/// `MAX_LINEINFO_REC_SIZE` (`MAX_FUNCINFO_REC_SIZE`).
const MAX_LINEINFO_REC_SIZE: u32 = 252;

/// `check_btf_line`: the records' size, increasing `insn_off` inside the
/// program on a real insn, valid string offsets, and a record at the start
/// of every subprogram; the records become `prog->aux->linfo`.
fn check_btf_line(env: &mut VerifierEnv<'_>) -> PResult<()> {
    let Some(attr) = env.input.line_info.as_ref().filter(|a| a.cnt != 0) else {
        return Ok(());
    };
    let nr_linfo = attr.cnt;
    if nr_linfo as u64 > i32::MAX as u64 / BPF_LINE_INFO_SIZE as u64 {
        return Err(Fail::Errno(EINVAL));
    }
    let rec_size = attr.rec_size;
    if !(MIN_BPF_LINEINFO_SIZE..=MAX_LINEINFO_REC_SIZE).contains(&rec_size) || rec_size & 3 != 0 {
        return Err(Fail::Errno(EINVAL));
    }
    let Some(btf) = env.input.prog_btf.clone() else {
        return Err(Fail::Errno(EINVAL));
    };
    let prog_len = env.insns.len() as u32;
    let word = |rec: &[u8], i: usize| u32::from_le_bytes([rec[4 * i], rec[4 * i + 1], rec[4 * i + 2], rec[4 * i + 3]]);
    let mut linfo = Vec::with_capacity(nr_linfo as usize);
    let mut s = 0usize;
    let mut prev_offset = 0u32;
    for i in 0..nr_linfo {
        let at = i as usize * rec_size as usize;
        let Some(rec) = attr.data.get(at..at + rec_size as usize) else {
            return Err(Fail::Errno(super::errno::EFAULT));
        };
        // bpf_check_uarg_tail_zero: what the kernel does not know of a
        // bigger record must be zero
        if rec[BPF_LINE_INFO_SIZE as usize..].iter().any(|&b| b != 0) {
            env.verbose("nonzero tailing record in line_info");
            return Err(Fail::Errno(E2BIG));
        }
        let l = BpfLineInfo { insn_off: word(rec, 0), file_name_off: word(rec, 1), line_off: word(rec, 2), line_col: word(rec, 3) };
        if (i != 0 && l.insn_off <= prev_offset) || l.insn_off >= prog_len {
            env.verbose(&format!("Invalid line_info[{i}].insn_off:{} (prev_offset:{prev_offset} prog->len:{prog_len})\n", l.insn_off));
            return Err(Fail::Errno(EINVAL));
        }
        if env.insns[l.insn_off as usize].code == 0 {
            env.verbose(&format!("Invalid insn code at line_info[{i}].insn_off\n"));
            return Err(Fail::Errno(EINVAL));
        }
        if !btf_name_offset_valid(&btf, l.line_off) || !btf_name_offset_valid(&btf, l.file_name_off) {
            env.verbose(&format!("Invalid line_info[{i}].line_off or .file_name_off\n"));
            return Err(Fail::Errno(EINVAL));
        }
        if s != env.subprog_cnt {
            let start = env.subprog_info[s].start as u32;
            if l.insn_off == start {
                s += 1;
            } else if start < l.insn_off {
                env.verbose(&format!("missing bpf_line_info for func#{s}\n"));
                return Err(Fail::Errno(EINVAL));
            }
        }
        prev_offset = l.insn_off;
        linfo.push(l);
    }
    if s != env.subprog_cnt {
        env.verbose(&format!("missing bpf_line_info for {} funcs starting from func#{s}\n", env.subprog_cnt - s));
        return Err(Fail::Errno(EINVAL));
    }
    env.linfo = linfo;
    Ok(())
}

/// `btf_name_by_offset` gives a string: the offset is inside the string
/// section.
fn btf_name_offset_valid(btf: &crate::btf::Btf, off: u32) -> bool {
    btf.str_len() > off as usize
}

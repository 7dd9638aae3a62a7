//! The verifier's side of the bpf_fastcall contract (kernel/bpf/verifier.c):
//! `mark_fastcall_patterns` finds the spill/fill pairs clang puts around a
//! call to a helper or kfunc with the `bpf_fastcall` attribute, and
//! `check_fastcall_stack_contract` (called by the main pass on every stack
//! access) gives up on a subprogram whose pattern slots are touched by
//! anything else. `bpf_remove_fastcall_spills_fills`
//! ([`crate::fixups::fastcall`]) then drops the pairs around calls this
//! kernel inlines.
//!
//! The contract: a fastcall function clobbers r0 only when it returns a
//! value and r1-r5 only up to its parameter count, so clang spills every
//! other live caller-saved register to the lowest stack slots of the
//! function, right before the call, and fills it right after.

use bpf_isa::Insn;
use bpf_isa::op::*;

use super::Fail;
use super::do_check::Env;
use super::env::{VerifierEnv, bpf_pseudo_call, bpf_pseudo_func};
use super::liveness::bpf_get_call_summary;

use super::calls::CALLER_SAVED_REGS;
/// `ALL_CALLER_SAVED_REGS`.
const ALL_CALLER_SAVED_REGS: u32 = (1 << CALLER_SAVED_REGS) - 1;
const BPF_REG_SIZE: i16 = super::state::BPF_REG_SIZE as i16;

/// `mark_jump_target` as `check_cfg` applies it: the target of every
/// branch (conditional, `may_goto`, `goto`/`gotol`) and the entry of every
/// callee (`call pc+N`, `ld_imm64` of a function). Unlike `jmp_point`, the
/// insn after a call is not one. The CFG walk has checked every target and
/// visited every insn, so reading the insns in order finds the same set;
/// it runs right after `bpf_check_cfg`, before dead branches are folded.
pub fn mark_jump_targets(env: &mut VerifierEnv<'_>) {
    let n = env.insns.len();
    let mut i = 0;
    while i < n {
        let insn = env.insns[i];
        if !matches!(insn.class(), BPF_JMP | BPF_JMP32 | BPF_LD) {
            // neither a jump, a call nor a function reference
            i += 1;
            continue;
        }
        let target = jump_target_of(&insn, i);
        if let Some(a) = target.and_then(|t| usize::try_from(t).ok()).and_then(|t| env.aux.get_mut(t)) {
            a.jump_target = true;
        }
        i += if insn.is_ld_imm64() { 2 } else { 1 };
    }
}

/// Where `insn` at `idx` can jump to other than the next insn (calls of
/// helpers and kfuncs return to the next one).
fn jump_target_of(insn: &Insn, idx: usize) -> Option<i64> {
    let idx = idx as i64;
    if bpf_pseudo_func(insn) || bpf_pseudo_call(insn) {
        return Some(idx + insn.imm as i64 + 1);
    }
    let cls = insn.class();
    if cls != BPF_JMP && cls != BPF_JMP32 {
        return None;
    }
    match insn.code & 0xf0 {
        BPF_CALL | BPF_EXIT => None,
        // gotox is refused by the model's CFG walk before this runs
        BPF_JA if insn.code & BPF_X != 0 => None,
        BPF_JA if cls == BPF_JMP32 => Some(idx + insn.imm as i64 + 1),
        _ => Some(idx + insn.off as i64 + 1),
    }
}

/// `GENMASK(h, l)` on u32; empty when `l > h`.
fn genmask(h: u32, l: u32) -> u32 {
    if l > h { 0 } else { (u32::MAX >> (31 - h)) & (u32::MAX << l) }
}

/// `mark_fastcall_pattern_for_call`: the spill/fill pairs around the call
/// at `idx`, matched outwards from the call, the k-th pair at
/// `lowest_off + 8 * (k - 1)`.
fn mark_fastcall_pattern_for_call(env: &mut VerifierEnv<'_>, subprog: usize, idx: usize, lowest_off: i16) -> Result<(), Fail> {
    let call = env.insns[idx];
    let Some(cs) = bpf_get_call_summary(env, &call)? else { return Ok(()) };
    // what the call clobbers if it keeps the contract: r0 unless void,
    // r1..r<num_params>; the pattern may save any of the others, once each
    let clobbered = genmask(cs.num_params, if cs.is_void { 1 } else { 0 });
    let mut expected = !clobbered & ALL_CALLER_SAVED_REGS;
    let n = env.insns.len();
    let mut i = 1;
    let mut off = lowest_off;
    while i <= CALLER_SAVED_REGS {
        if idx < i || idx + i >= n {
            break;
        }
        // a jump into the pattern (other than to its first spill) would
        // run part of it
        if env.aux[idx - i + 1].jump_target || env.aux[idx + i].jump_target {
            break;
        }
        let stx = env.insns[idx - i];
        let ldx = env.insns[idx + i];
        if stx.code != BPF_STX | BPF_MEM | BPF_DW || ldx.code != BPF_LDX | BPF_MEM | BPF_DW || stx.dst != 10 || ldx.src != 10 {
            break;
        }
        if stx.src != ldx.dst || stx.src > 5 || (1u32 << stx.src) & expected == 0 {
            break;
        }
        if stx.off != off || ldx.off != off {
            break;
        }
        expected &= !(1u32 << stx.src);
        env.aux[idx - i].fastcall_pattern = true;
        env.aux[idx + i].fastcall_pattern = true;
        i += 1;
        off = off.wrapping_add(BPF_REG_SIZE);
    }
    if i == 1 {
        return Ok(());
    }
    // a call this kernel does not treat as fastcall keeps its pairs (and
    // the stack they use), but its slots still count as pattern slots
    if cs.fastcall {
        env.aux[idx].fastcall_spills_num = (i - 1) as u8;
    } else {
        env.subprog_info[subprog].keep_fastcall_stack = true;
    }
    let si = &mut env.subprog_info[subprog];
    si.fastcall_stack_off = si.fastcall_stack_off.min(off);
    Ok(())
}

/// `mark_fastcall_patterns`: per subprogram, the lowest offset any `DW`
/// spill to r10 uses is where the pattern slots must start.
pub fn mark_fastcall_patterns(env: &mut VerifierEnv<'_>) -> Result<(), Fail> {
    for s in 0..env.subprog_cnt {
        let start = env.subprog_info[s].start;
        let end = env.subprog_info.get(s + 1).map_or(env.insns.len(), |n| n.start).min(env.insns.len());
        let lowest_off = env.insns[start..end].iter().filter(|x| x.code == BPF_STX | BPF_MEM | BPF_DW && x.dst == 10).map(|x| x.off).fold(0i16, i16::min);
        for i in start..end {
            if env.insns[i].code == BPF_JMP | BPF_CALL {
                mark_fastcall_pattern_for_call(env, s, i, lowest_off)?;
            }
        }
    }
    Ok(())
}

impl Env<'_, '_> {
    /// `check_fastcall_stack_contract`: an access at stack offset `off` of
    /// frame `frame` by an insn outside any pattern, below where the
    /// pattern slots start, disables the rewrite for that frame's
    /// subprogram (the kernel also clears its insns' marks; with the
    /// offset at `i16::MIN` nothing reads them any more).
    pub(crate) fn check_fastcall_stack_contract(&mut self, frame: usize, off: i64) {
        let Some(subprogno) = self.cur.frame.get(frame).map(|f| f.subprogno) else { return };
        let pattern = self.info(self.insn_idx).fastcall_pattern;
        let Some(sp) = self.subprogs.get_mut(subprogno) else { return };
        if sp.fastcall_stack_off as i64 <= off || pattern {
            return;
        }
        sp.fastcall_stack_off = i16::MIN;
    }
}

#[cfg(test)]
mod tests {
    use super::genmask;

    #[test]
    fn genmask_as_the_kernel() {
        assert_eq!(genmask(0, 0), 0b1);
        assert_eq!(genmask(2, 0), 0b111);
        assert_eq!(genmask(2, 1), 0b110);
        // a void function without parameters clobbers nothing
        assert_eq!(genmask(0, 1), 0);
        assert_eq!(genmask(5, 1), 0b11_1110);
    }
}

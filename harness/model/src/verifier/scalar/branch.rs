//! Conditional jumps on scalars: `is_scalar_branch_taken`,
//! `regs_refine_cond_op` and `simulate_both_branches_taken` of
//! `kernel/bpf/verifier.c`.
//!
//! `check_cond_jmp_op` copies both operands into four scratch registers
//! (`env->{false,true}_reg{1,2}`); when the quick range tests cannot decide a
//! branch, 7.3 refines the copies for both outcomes and calls a branch dead
//! if refining empties a range. The refined copies become the registers of
//! the two successors, so [`BranchRegs`] is both the decision's by-product
//! and the next states' registers.

use bpf_isa::insn::op::*;

use super::{Scalar, range_bounds_violation, reg_bounds_sync};
use crate::verifier::tnum::*;

/// `env->false_reg1/false_reg2/true_reg1/true_reg2`: the operands as they
/// continue on the fall-through (false) and the jump (true) edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BranchRegs {
    pub false_reg1: Scalar,
    pub false_reg2: Scalar,
    pub true_reg1: Scalar,
    pub true_reg2: Scalar,
}

impl BranchRegs {
    /// Both edges start as copies of the operands.
    pub fn new(reg1: &Scalar, reg2: &Scalar) -> BranchRegs {
        BranchRegs { false_reg1: *reg1, false_reg2: *reg2, true_reg1: *reg1, true_reg2: *reg2 }
    }
}

/// `BPF_JSET | BPF_X`: the kernel's private opcode for "JSET is false".
pub const BPF_JSET_FALSE: u8 = BPF_JSET | BPF_X;

/// `flip_opcode`: the op for `b <op> a` given `a <op> b`.
pub fn flip_opcode(opcode: u8) -> u8 {
    match opcode {
        BPF_JGE => BPF_JLE,
        BPF_JGT => BPF_JLT,
        BPF_JLE => BPF_JGE,
        BPF_JLT => BPF_JGT,
        BPF_JSGE => BPF_JSLE,
        BPF_JSGT => BPF_JSLT,
        BPF_JSLE => BPF_JSGE,
        BPF_JSLT => BPF_JSGT,
        BPF_JEQ | BPF_JNE | BPF_JSET => opcode,
        _ => 0,
    }
}

/// `rev_opcode`: the condition of the false edge.
pub fn rev_opcode(opcode: u8) -> u8 {
    match opcode {
        BPF_JEQ => BPF_JNE,
        BPF_JNE => BPF_JEQ,
        BPF_JSET => BPF_JSET_FALSE,
        BPF_JSET_FALSE => BPF_JSET,
        BPF_JGE => BPF_JLT,
        BPF_JGT => BPF_JLE,
        BPF_JLE => BPF_JGT,
        BPF_JLT => BPF_JGE,
        BPF_JSGE => BPF_JSLT,
        BPF_JSGT => BPF_JSLE,
        BPF_JSLE => BPF_JSGT,
        BPF_JSLT => BPF_JSGE,
        _ => 0,
    }
}

/// `regs_refine_cond_op`: narrow `reg1` and `reg2` assuming `reg1 <op> reg2`
/// holds. No sync here; the caller runs `reg_bounds_sync` on both.
pub fn regs_refine_cond_op(reg1: &mut Scalar, reg2: &mut Scalar, opcode: u8, is_jmp32: bool) {
    // GE/GT/SGE/SGT reuse the LE/LT logic with the operands swapped.
    let (reg1, reg2, opcode) = match opcode {
        BPF_JGE | BPF_JGT | BPF_JSGE | BPF_JSGT => (reg2, reg1, flip_opcode(opcode)),
        _ => (reg1, reg2, opcode),
    };
    match opcode {
        BPF_JEQ => {
            if is_jmp32 {
                reg1.r32 = reg1.r32.intersect(reg2.r32);
                reg2.r32 = reg1.r32;
                let t = tnum_intersect(tnum_subreg(reg1.var_off), tnum_subreg(reg2.var_off));
                reg1.var_off = tnum_with_subreg(reg1.var_off, t);
                reg2.var_off = tnum_with_subreg(reg2.var_off, t);
            } else {
                reg1.r64 = reg1.r64.intersect(reg2.r64);
                reg2.r64 = reg1.r64;
                reg1.var_off = tnum_intersect(reg1.var_off, reg2.var_off);
                reg2.var_off = reg1.var_off;
            }
        }
        BPF_JNE => {
            // Only a constant operand at the very edge of the other's range
            // teaches anything: the arc loses that one value.
            let (r1, r2) = const_second(reg1, reg2, is_jmp32);
            let Some(r2) = r2 else { return };
            let val = r2.reg_const_value(is_jmp32);
            if is_jmp32 {
                r1.r32.intersect_with(super::Cnum32::new((val as u32).wrapping_add(1), u32::MAX - 1));
            } else {
                r1.r64.intersect_with(super::Cnum64::new(val.wrapping_add(1), u64::MAX - 1));
            }
        }
        BPF_JSET => {
            let (r1, r2) = const_second(reg1, reg2, is_jmp32);
            let Some(r2) = r2 else { return };
            let val = r2.reg_const_value(is_jmp32);
            // Only a single tested bit is known to be set.
            if !val.is_power_of_two() {
                return;
            }
            if is_jmp32 {
                let t = tnum_or(tnum_subreg(r1.var_off), tnum_const(val));
                r1.var_off = tnum_with_subreg(r1.var_off, t);
            } else {
                r1.var_off = tnum_or(r1.var_off, tnum_const(val));
            }
        }
        BPF_JSET_FALSE => {
            let (r1, r2) = const_second(reg1, reg2, is_jmp32);
            let Some(r2) = r2 else { return };
            let val = r2.reg_const_value(is_jmp32);
            // Ranges are dropped before the bits narrow, so that a dead
            // branch cannot trip an invariant check.
            r1.mark_reg_unbounded();
            if is_jmp32 {
                let t = tnum_and(tnum_subreg(r1.var_off), tnum_const(!val));
                r1.var_off = tnum_with_subreg(r1.var_off, t);
            } else {
                r1.var_off = tnum_and(r1.var_off, tnum_const(!val));
            }
        }
        BPF_JLE => {
            if is_jmp32 {
                reg1.r32.intersect_with_urange(0, reg2.u32_max());
                reg2.r32.intersect_with_urange(reg1.u32_min(), u32::MAX);
            } else {
                reg1.r64.intersect_with_urange(0, reg2.umax());
                reg2.r64.intersect_with_urange(reg1.umin(), u64::MAX);
            }
        }
        BPF_JLT => {
            if is_jmp32 {
                reg1.r32.intersect_with_urange(0, reg2.u32_max().wrapping_sub(1));
                reg2.r32.intersect_with_urange(reg1.u32_min().wrapping_add(1), u32::MAX);
            } else {
                reg1.r64.intersect_with_urange(0, reg2.umax().wrapping_sub(1));
                reg2.r64.intersect_with_urange(reg1.umin().wrapping_add(1), u64::MAX);
            }
        }
        BPF_JSLE => {
            if is_jmp32 {
                reg1.r32.intersect_with_srange(i32::MIN, reg2.s32_max());
                reg2.r32.intersect_with_srange(reg1.s32_min(), i32::MAX);
            } else {
                reg1.r64.intersect_with_srange(i64::MIN, reg2.smax());
                reg2.r64.intersect_with_srange(reg1.smin(), i64::MAX);
            }
        }
        BPF_JSLT => {
            if is_jmp32 {
                reg1.r32.intersect_with_srange(i32::MIN, reg2.s32_max().wrapping_sub(1));
                reg2.r32.intersect_with_srange(reg1.s32_min().wrapping_add(1), i32::MAX);
            } else {
                reg1.r64.intersect_with_srange(i64::MIN, reg2.smax().wrapping_sub(1));
                reg2.r64.intersect_with_srange(reg1.smin().wrapping_add(1), i64::MAX);
            }
        }
        _ => {}
    }
}

/// Orders two operands so that the second is the constant one, if either is
/// (`if (!is_reg_const(reg2)) swap(reg1, reg2)`).
fn const_second<'a>(reg1: &'a mut Scalar, reg2: &'a mut Scalar, is_jmp32: bool) -> (&'a mut Scalar, Option<&'a mut Scalar>) {
    if reg2.is_reg_const(is_jmp32) {
        (reg1, Some(reg2))
    } else if reg1.is_reg_const(is_jmp32) {
        (reg2, Some(reg1))
    } else {
        (reg1, None)
    }
}

/// `simulate_both_branches_taken`: refine the copies for both outcomes; an
/// edge whose registers become empty is dead.
pub fn simulate_both_branches_taken(regs: &mut BranchRegs, opcode: u8, is_jmp32: bool) -> Option<bool> {
    regs_refine_cond_op(&mut regs.false_reg1, &mut regs.false_reg2, rev_opcode(opcode), is_jmp32);
    reg_bounds_sync(&mut regs.false_reg1);
    reg_bounds_sync(&mut regs.false_reg2);
    if range_bounds_violation(&regs.false_reg1) || range_bounds_violation(&regs.false_reg2) {
        return Some(true);
    }
    regs_refine_cond_op(&mut regs.true_reg1, &mut regs.true_reg2, opcode, is_jmp32);
    reg_bounds_sync(&mut regs.true_reg1);
    reg_bounds_sync(&mut regs.true_reg2);
    if range_bounds_violation(&regs.true_reg1) || range_bounds_violation(&regs.true_reg2) {
        return Some(false);
    }
    None
}

/// `is_scalar_branch_taken`: `Some(true)` if `reg1 <op> reg2` always holds,
/// `Some(false)` if never, `None` if both edges are possible (the kernel's
/// 1, 0, -1). `same_reg` is the kernel's `reg1 == reg2` (`if r1 > r1`).
///
/// `regs` must start as [`BranchRegs::new`]`(reg1, reg2)`; when the answer
/// needed the simulation it holds the refined registers of both edges, else
/// unrefined copies, as in the kernel.
pub fn is_scalar_branch_taken(regs: &mut BranchRegs, reg1: &Scalar, reg2: &Scalar, same_reg: bool, opcode: u8, is_jmp32: bool) -> Option<bool> {
    match scalar_branch_decided(reg1, reg2, same_reg, opcode, is_jmp32) {
        Some(taken) => taken,
        None => simulate_both_branches_taken(regs, opcode, is_jmp32),
    }
}

/// The part of [`is_scalar_branch_taken`] that reads the bounds only:
/// `Some(answer)` when they decide, `None` when it takes the simulation
/// of both edges (so a caller builds the edges' registers only then).
pub fn scalar_branch_decided(reg1: &Scalar, reg2: &Scalar, same_reg: bool, opcode: u8, is_jmp32: bool) -> Option<Option<bool>> {
    let (t1, t2) = if is_jmp32 { (tnum_subreg(reg1.var_off), tnum_subreg(reg2.var_off)) } else { (reg1.var_off, reg2.var_off) };
    // two constants compared for equality need none of the bounds
    if !same_reg && matches!(opcode, BPF_JEQ | BPF_JNE) && tnum_is_const(t1) && tnum_is_const(t2) {
        return Some(Some((t1.value == t2.value) == (opcode == BPF_JEQ)));
    }
    let bounds = |r: &Scalar| -> (u64, u64, i64, i64) {
        if is_jmp32 {
            (u64::from(r.u32_min()), u64::from(r.u32_max()), i64::from(r.s32_min()), i64::from(r.s32_max()))
        } else {
            (r.umin(), r.umax(), r.smin(), r.smax())
        }
    };
    let (umin1, umax1, smin1, smax1) = bounds(reg1);
    let (umin2, umax2, smin2, smax2) = bounds(reg2);

    if same_reg {
        return Some(match opcode {
            BPF_JGE | BPF_JLE | BPF_JSGE | BPF_JSLE | BPF_JEQ => Some(true),
            BPF_JGT | BPF_JLT | BPF_JSGT | BPF_JSLT | BPF_JNE => Some(false),
            BPF_JSET => {
                if tnum_is_const(t1) {
                    Some(t1.value != 0)
                } else if smin1 <= 0 && smax1 >= 0 {
                    None
                } else {
                    Some(true)
                }
            }
            _ => None,
        });
    }

    // The 32-bit bounds rule out equality even when the 64-bit ones do not.
    let subreg_disjoint =
        || reg1.u32_min() > reg2.u32_max() || reg1.u32_max() < reg2.u32_min() || reg1.s32_min() > reg2.s32_max() || reg1.s32_max() < reg2.s32_min();
    match opcode {
        BPF_JEQ | BPF_JNE => {
            let eq = opcode == BPF_JEQ;
            if tnum_is_const(t1) && tnum_is_const(t2) {
                return Some(Some((t1.value == t2.value) == eq));
            }
            if !tnum_overlap(t1, t2) || umin1 > umax2 || umax1 < umin2 || smin1 > smax2 || smax1 < smin2 || (!is_jmp32 && subreg_disjoint()) {
                return Some(Some(!eq));
            }
        }
        BPF_JSET => {
            let (t1, t2) = if reg2.is_reg_const(is_jmp32) {
                (t1, t2)
            } else if reg1.is_reg_const(is_jmp32) {
                (t2, t1)
            } else {
                return Some(None);
            };
            if (!t1.mask & t1.value) & t2.value != 0 {
                return Some(Some(true));
            }
            if (t1.mask | t1.value) & t2.value == 0 {
                return Some(Some(false));
            }
        }
        BPF_JGT => {
            if umin1 > umax2 {
                return Some(Some(true));
            } else if umax1 <= umin2 {
                return Some(Some(false));
            }
        }
        BPF_JSGT => {
            if smin1 > smax2 {
                return Some(Some(true));
            } else if smax1 <= smin2 {
                return Some(Some(false));
            }
        }
        BPF_JLT => {
            if umax1 < umin2 {
                return Some(Some(true));
            } else if umin1 >= umax2 {
                return Some(Some(false));
            }
        }
        BPF_JSLT => {
            if smax1 < smin2 {
                return Some(Some(true));
            } else if smin1 >= smax2 {
                return Some(Some(false));
            }
        }
        BPF_JGE => {
            if umin1 >= umax2 {
                return Some(Some(true));
            } else if umax1 < umin2 {
                return Some(Some(false));
            }
        }
        BPF_JSGE => {
            if smin1 >= smax2 {
                return Some(Some(true));
            } else if smax1 < smin2 {
                return Some(Some(false));
            }
        }
        BPF_JLE => {
            if umax1 <= umin2 {
                return Some(Some(true));
            } else if umin1 > umax2 {
                return Some(Some(false));
            }
        }
        BPF_JSLE => {
            if smax1 <= smin2 {
                return Some(Some(true));
            } else if smin1 > smax2 {
                return Some(Some(false));
            }
        }
        _ => {}
    }
    None
}

/// The scalar part of `check_cond_jmp_op` up to the branch decision: the
/// verdict of [`is_scalar_branch_taken`] and the registers of both edges.
/// For `BPF_K` pass `Scalar::known(insn.imm as i64 as u64)` as `src`.
pub fn scalar_cond_jmp(dst: &Scalar, src: &Scalar, same_reg: bool, opcode: u8, is_jmp32: bool) -> (Option<bool>, BranchRegs) {
    let mut regs = BranchRegs::new(dst, src);
    let taken = is_scalar_branch_taken(&mut regs, dst, src, same_reg, opcode, is_jmp32);
    (taken, regs)
}

//! ALU transfer functions on scalars: `adjust_scalar_min_max_vals` and the
//! `scalar{,32}_min_max_*` functions of `kernel/bpf/verifier.c`.
//!
//! Each op updates `var_off`, `r64` and `r32` the way 7.3 does (some precisely,
//! some by forgetting a range and relearning it from the bits), then 32-bit
//! ops zero-extend and everything ends in `reg_bounds_sync`.

use bpf_isa::Insn;
use bpf_isa::insn::op::*;

use super::{Cnum32, Cnum64, Scalar, reg_bounds_sync, update_reg_bounds, update_reg32_bounds, zext_32_to_64};
use crate::verifier::tnum::*;

/// What `adjust_scalar_min_max_vals` did besides computing the value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AluOutcome {
    /// The op's range was not computable (`is_safe_to_compute_dst_reg_range`)
    /// and the kernel called `__mark_reg_unknown()`: the register is reset
    /// whole (id, delta, and `precise = !bpf_capable`).
    pub marked_unknown: bool,
    /// The kernel cleared the register's scalar id and delta on the way
    /// (`__mark_reg_known()` in NEG and in constant AND/OR/XOR, or
    /// `clear_scalar_id()` in a byte swap). `adjust_reg_min_max_vals`
    /// clears ids afterwards for most ops anyway.
    pub id_cleared: bool,
    /// `maybe_fork_scalars`: AND/OR with a constant on a register that is
    /// either 0 or -1 (64 or 32 bits). The kernel pushes a branch that
    /// re-executes this insn (`from N to N:`) with the destination replaced
    /// by this value; the current path continues with the destination -1.
    pub fork: Option<Fork>,
}

/// The destination register of the branch `maybe_fork_scalars` pushes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fork {
    pub dst: Scalar,
    /// The pushed register's id and delta are cleared (64-bit fork).
    pub id_cleared: bool,
}

/// `scalar32_min_max_add`.
pub fn scalar32_min_max_add(dst: &mut Scalar, src: &Scalar) {
    dst.r32 = dst.r32.add(src.r32);
}

/// `scalar_min_max_add`.
pub fn scalar_min_max_add(dst: &mut Scalar, src: &Scalar) {
    dst.r64 = dst.r64.add(src.r64);
}

/// `scalar32_min_max_sub`.
pub fn scalar32_min_max_sub(dst: &mut Scalar, src: &Scalar) {
    dst.r32 = dst.r32.add(src.r32.negate());
}

/// `scalar_min_max_sub`.
pub fn scalar_min_max_sub(dst: &mut Scalar, src: &Scalar) {
    dst.r64 = dst.r64.add(src.r64.negate());
}

/// `scalar32_min_max_mul`: unsigned and signed products of the bounds, each
/// forgotten on possible overflow, then intersected.
pub fn scalar32_min_max_mul(dst: &mut Scalar, src: &Scalar) {
    let (mut smin, mut smax) = (dst.s32_min(), dst.s32_max());
    let (mut umin, mut umax) = (dst.u32_min(), dst.u32_max());
    match (umax.checked_mul(src.u32_max()), umin.checked_mul(src.u32_min())) {
        (Some(hi), Some(lo)) => (umin, umax) = (lo, hi),
        _ => (umin, umax) = (0, u32::MAX),
    }
    let prods = [smin.checked_mul(src.s32_min()), smin.checked_mul(src.s32_max()), smax.checked_mul(src.s32_min()), smax.checked_mul(src.s32_max())];
    if prods.iter().all(Option::is_some) {
        let p = prods.map(|v| v.unwrap_or_default());
        smin = p.iter().copied().min().unwrap_or(i32::MIN);
        smax = p.iter().copied().max().unwrap_or(i32::MAX);
    } else {
        (smin, smax) = (i32::MIN, i32::MAX);
    }
    dst.r32 = Cnum32::from_urange(umin, umax).intersect(Cnum32::from_srange(smin, smax));
}

/// `scalar_min_max_mul`, as [`scalar32_min_max_mul`] for 64 bits.
pub fn scalar_min_max_mul(dst: &mut Scalar, src: &Scalar) {
    let (mut smin, mut smax) = (dst.smin(), dst.smax());
    let (mut umin, mut umax) = (dst.umin(), dst.umax());
    match (umax.checked_mul(src.umax()), umin.checked_mul(src.umin())) {
        (Some(hi), Some(lo)) => (umin, umax) = (lo, hi),
        _ => (umin, umax) = (0, u64::MAX),
    }
    let prods = [smin.checked_mul(src.smin()), smin.checked_mul(src.smax()), smax.checked_mul(src.smin()), smax.checked_mul(src.smax())];
    if prods.iter().all(Option::is_some) {
        let p = prods.map(|v| v.unwrap_or_default());
        smin = p.iter().copied().min().unwrap_or(i64::MIN);
        smax = p.iter().copied().max().unwrap_or(i64::MAX);
    } else {
        (smin, smax) = (i64::MIN, i64::MAX);
    }
    dst.r64 = Cnum64::from_urange(umin, umax).intersect(Cnum64::from_srange(smin, smax));
}

/// `scalar32_min_max_udiv`: by a known non-zero divisor.
pub fn scalar32_min_max_udiv(dst: &mut Scalar, src: &Scalar) {
    let d = src.u32_min();
    if d == 0 {
        return;
    }
    dst.set_urange32(dst.u32_min() / d, dst.u32_max() / d);
    dst.reset_reg64_and_tnum();
}

/// `scalar_min_max_udiv`.
pub fn scalar_min_max_udiv(dst: &mut Scalar, src: &Scalar) {
    let d = src.umin();
    if d == 0 {
        return;
    }
    dst.set_urange64(dst.umin() / d, dst.umax() / d);
    dst.reset_reg32_and_tnum();
}

/// `scalar32_min_max_sdiv`: BPF defines `S32_MIN / -1 = S32_MIN`.
pub fn scalar32_min_max_sdiv(dst: &mut Scalar, src: &Scalar) {
    let (mut smin, mut smax) = (dst.s32_min(), dst.s32_max());
    let d = src.s32_min();
    if d == 0 {
        return;
    }
    if smin == i32::MIN && d == -1 {
        // Anything besides S32_MIN in the dividend makes the result wrap.
        if smax != i32::MIN {
            (smin, smax) = (i32::MIN, i32::MAX);
        }
    } else {
        let r1 = smin.wrapping_div(d);
        let r2 = smax.wrapping_div(d);
        (smin, smax) = (r1.min(r2), r1.max(r2));
    }
    dst.set_srange32(smin, smax);
    dst.reset_reg64_and_tnum();
}

/// `scalar_min_max_sdiv`.
pub fn scalar_min_max_sdiv(dst: &mut Scalar, src: &Scalar) {
    let (mut smin, mut smax) = (dst.smin(), dst.smax());
    let d = src.smin();
    if d == 0 {
        return;
    }
    if smin == i64::MIN && d == -1 {
        if smax != i64::MIN {
            (smin, smax) = (i64::MIN, i64::MAX);
        }
    } else {
        let r1 = smin.wrapping_div(d);
        let r2 = smax.wrapping_div(d);
        (smin, smax) = (r1.min(r2), r1.max(r2));
    }
    dst.set_srange64(smin, smax);
    dst.reset_reg32_and_tnum();
}

/// `scalar32_min_max_umod`: unchanged when already below the divisor.
pub fn scalar32_min_max_umod(dst: &mut Scalar, src: &Scalar) {
    let res_max = src.u32_min().wrapping_sub(1);
    if dst.u32_max() <= res_max {
        return;
    }
    dst.set_urange32(0, dst.u32_max().min(res_max));
    dst.reset_reg64_and_tnum();
}

/// `scalar_min_max_umod`.
pub fn scalar_min_max_umod(dst: &mut Scalar, src: &Scalar) {
    let res_max = src.umin().wrapping_sub(1);
    if dst.umax() <= res_max {
        return;
    }
    dst.set_urange64(0, dst.umax().min(res_max));
    dst.reset_reg32_and_tnum();
}

/// `scalar32_min_max_smod`: the result has the dividend's sign and is
/// smaller in magnitude than the divisor.
pub fn scalar32_min_max_smod(dst: &mut Scalar, src: &Scalar) {
    let d = src.s32_min();
    let abs = if d > 0 { d as u32 } else { (d as u32).wrapping_neg() };
    let res_max_abs = abs.wrapping_sub(1) as i32;
    let neg = res_max_abs.wrapping_neg();
    if dst.s32_min() >= neg && dst.s32_max() <= res_max_abs {
        return;
    }
    if dst.s32_min() >= 0 {
        dst.set_srange32(0, dst.s32_max().min(res_max_abs));
    } else if dst.s32_max() <= 0 {
        dst.set_srange32(dst.s32_min().max(neg), 0);
    } else {
        dst.set_srange32(neg, res_max_abs);
    }
    dst.reset_reg64_and_tnum();
}

/// `scalar_min_max_smod`.
pub fn scalar_min_max_smod(dst: &mut Scalar, src: &Scalar) {
    let d = src.smin();
    let abs = if d > 0 { d as u64 } else { (d as u64).wrapping_neg() };
    let res_max_abs = abs.wrapping_sub(1) as i64;
    let neg = res_max_abs.wrapping_neg();
    if dst.smin() >= neg && dst.smax() <= res_max_abs {
        return;
    }
    if dst.smin() >= 0 {
        dst.set_srange64(0, dst.smax().min(res_max_abs));
    } else if dst.smax() <= 0 {
        dst.set_srange64(dst.smin().max(neg), 0);
    } else {
        dst.set_srange64(neg, res_max_abs);
    }
    dst.reset_reg32_and_tnum();
}

/// `scalar32_min_max_and`; `dst.var_off` already holds the AND of the bits.
pub fn scalar32_min_max_and(dst: &mut Scalar, src: &Scalar) {
    let src_known = tnum_subreg_is_const(src.var_off);
    let dst_known = tnum_subreg_is_const(dst.var_off);
    let var32_off = tnum_subreg(dst.var_off);
    if src_known && dst_known {
        dst.mark_reg32_known(var32_off.value);
        return;
    }
    // The minimum comes from the bits, the maximum is the smaller maximum.
    dst.set_urange32(var32_off.value as u32, dst.u32_max().min(src.u32_max()));
}

/// `scalar_min_max_and`; returns true when it marked the register known
/// (which clears its id).
pub fn scalar_min_max_and(dst: &mut Scalar, src: &Scalar) -> bool {
    if tnum_is_const(src.var_off) && tnum_is_const(dst.var_off) {
        dst.mark_known(dst.var_off.value);
        return true;
    }
    dst.set_urange64(dst.var_off.value, dst.umax().min(src.umax()));
    update_reg_bounds(dst);
    false
}

/// `scalar32_min_max_or`.
pub fn scalar32_min_max_or(dst: &mut Scalar, src: &Scalar) {
    let src_known = tnum_subreg_is_const(src.var_off);
    let dst_known = tnum_subreg_is_const(dst.var_off);
    let var32_off = tnum_subreg(dst.var_off);
    if src_known && dst_known {
        dst.mark_reg32_known(var32_off.value);
        return;
    }
    // The maximum comes from the bits, the minimum is the larger minimum.
    dst.set_urange32(dst.u32_min().max(src.u32_min()), (var32_off.value | var32_off.mask) as u32);
}

/// `scalar_min_max_or`; true when it marked the register known.
pub fn scalar_min_max_or(dst: &mut Scalar, src: &Scalar) -> bool {
    if tnum_is_const(src.var_off) && tnum_is_const(dst.var_off) {
        dst.mark_known(dst.var_off.value);
        return true;
    }
    dst.set_urange64(dst.umin().max(src.umin()), dst.var_off.value | dst.var_off.mask);
    update_reg_bounds(dst);
    false
}

/// `scalar32_min_max_xor`.
pub fn scalar32_min_max_xor(dst: &mut Scalar, src: &Scalar) {
    let src_known = tnum_subreg_is_const(src.var_off);
    let dst_known = tnum_subreg_is_const(dst.var_off);
    let var32_off = tnum_subreg(dst.var_off);
    if src_known && dst_known {
        dst.mark_reg32_known(var32_off.value);
        return;
    }
    dst.set_urange32(var32_off.value as u32, (var32_off.value | var32_off.mask) as u32);
}

/// `scalar_min_max_xor`; true when it marked the register known.
pub fn scalar_min_max_xor(dst: &mut Scalar, src: &Scalar) -> bool {
    if tnum_is_const(src.var_off) && tnum_is_const(dst.var_off) {
        dst.mark_known(dst.var_off.value);
        return true;
    }
    dst.set_urange64(dst.var_off.value, dst.var_off.value | dst.var_off.mask);
    false
}

/// `__scalar32_min_max_lsh`: nothing is known if the top bit may shift out.
fn scalar32_min_max_lsh_bounds(dst: &mut Scalar, umin_val: u64, umax_val: u64) {
    if umax_val > 31 || u64::from(dst.u32_max()) > 1u64 << (31 - umax_val) {
        dst.set_urange32(0, u32::MAX);
    } else {
        dst.set_urange32(dst.u32_min() << umin_val, dst.u32_max() << umax_val);
    }
}

/// `scalar32_min_max_lsh`.
pub fn scalar32_min_max_lsh(dst: &mut Scalar, src: &Scalar) {
    let umax_val = src.u32_max();
    let umin_val = src.u32_min();
    let subreg = tnum_subreg(dst.var_off);
    scalar32_min_max_lsh_bounds(dst, u64::from(umin_val), u64::from(umax_val));
    dst.var_off = tnum_subreg(tnum_lshift(subreg, umin_val as u8));
    dst.mark_reg64_unbounded();
    update_reg32_bounds(dst);
}

/// `__scalar64_min_max_lsh`. `<< 32` of a sign-extended 32-bit value (the
/// compiler's `<<32 s>>32` idiom) keeps the signed range.
fn scalar64_min_max_lsh_bounds(dst: &mut Scalar, umin_val: u64, umax_val: u64) {
    let s = if umin_val == 32 && umax_val == 32 {
        Cnum64::from_srange(i64::from(dst.s32_min()).wrapping_shl(32), i64::from(dst.s32_max()).wrapping_shl(32))
    } else {
        Cnum64::UNBOUNDED
    };
    let u = if dst.umax() > 1u64.wrapping_shl(63u64.wrapping_sub(umax_val) as u32) {
        Cnum64::UNBOUNDED
    } else {
        Cnum64::from_urange(dst.umin().wrapping_shl(umin_val as u32), dst.umax().wrapping_shl(umax_val as u32))
    };
    dst.r64 = u.intersect(s);
}

/// `scalar_min_max_lsh`.
pub fn scalar_min_max_lsh(dst: &mut Scalar, src: &Scalar) {
    let umax_val = src.umax();
    let umin_val = src.umin();
    // The 64-bit part reads the unshifted 32-bit bounds: it goes first.
    scalar64_min_max_lsh_bounds(dst, umin_val, umax_val);
    scalar32_min_max_lsh_bounds(dst, umin_val, umax_val);
    dst.var_off = tnum_lshift(dst.var_off, umin_val as u8);
    update_reg_bounds(dst);
}

/// `scalar32_min_max_rsh`: signed bounds are relearned from the result.
pub fn scalar32_min_max_rsh(dst: &mut Scalar, src: &Scalar) {
    let subreg = tnum_subreg(dst.var_off);
    let umax_val = src.u32_max();
    let umin_val = src.u32_min();
    dst.var_off = tnum_rshift(subreg, umin_val as u8);
    dst.set_urange32(dst.u32_min().wrapping_shr(umax_val), dst.u32_max().wrapping_shr(umin_val));
    dst.mark_reg64_unbounded();
    update_reg32_bounds(dst);
}

/// `scalar_min_max_rsh`.
pub fn scalar_min_max_rsh(dst: &mut Scalar, src: &Scalar) {
    let umax_val = src.umax();
    let umin_val = src.umin();
    dst.var_off = tnum_rshift(dst.var_off, umin_val as u8);
    dst.set_urange64(dst.umin().wrapping_shr(umax_val as u32), dst.umax().wrapping_shr(umin_val as u32));
    dst.mark_reg32_unbounded();
    update_reg_bounds(dst);
}

/// `scalar32_min_max_arsh`, by a known shift.
pub fn scalar32_min_max_arsh(dst: &mut Scalar, src: &Scalar) {
    let umin_val = src.u32_min();
    dst.set_srange32(dst.s32_min().wrapping_shr(umin_val), dst.s32_max().wrapping_shr(umin_val));
    dst.var_off = tnum_arshift(tnum_subreg(dst.var_off), umin_val as u8, 32);
    dst.mark_reg64_unbounded();
    update_reg32_bounds(dst);
}

/// `scalar_min_max_arsh`, by a known shift.
pub fn scalar_min_max_arsh(dst: &mut Scalar, src: &Scalar) {
    let umin_val = src.umin();
    dst.set_srange64(dst.smin().wrapping_shr(umin_val as u32), dst.smax().wrapping_shr(umin_val as u32));
    dst.var_off = tnum_arshift(dst.var_off, umin_val as u8, 64);
    dst.mark_reg32_unbounded();
    update_reg_bounds(dst);
}

/// `scalar_byte_swap` on a little-endian target (x86-64, arm64): `bswapN`
/// and `beN` swap, `leN` only truncates. Returns true when the kernel clears
/// the register's scalar id (whenever the value changes).
pub fn scalar_byte_swap(dst: &mut Scalar, insn: &Insn) -> bool {
    let alu64 = insn.class() == BPF_ALU64;
    let to_le = src(insn.code) == BPF_TO_LE;
    let is_big_endian = false;
    let need_bswap = alu64 || (to_le == is_big_endian);
    let clears_id = need_bswap || insn.imm == 16 || insn.imm == 32;
    if need_bswap {
        dst.var_off = match insn.imm {
            16 => tnum_bswap16(dst.var_off),
            32 => tnum_bswap32(dst.var_off),
            64 => tnum_bswap64(dst.var_off),
            _ => dst.var_off,
        };
        // The ranges are scrambled; they are relearned from the bits.
        dst.mark_reg_unbounded();
    }
    if insn.imm == 16 || insn.imm == 32 {
        super::coerce_reg_to_size(dst, (insn.imm / 8) as u8);
    }
    clears_id
}

/// `is_safe_to_compute_dst_reg_range`: division needs a known divisor and a
/// shift a known amount below the width; otherwise the result is unknown.
pub fn is_safe_to_compute_dst_reg_range(insn: &Insn, src: &Scalar) -> bool {
    let insn_bitness: u64 = if insn.class() == BPF_ALU64 { 64 } else { 32 };
    let src_is_const = if insn_bitness == 32 {
        tnum_subreg_is_const(src.var_off) && src.s32_min() == src.s32_max() && src.u32_min() == src.u32_max()
    } else {
        tnum_is_const(src.var_off) && src.smin() == src.smax() && src.umin() == src.umax()
    };
    match op(insn.code) {
        BPF_ADD | BPF_SUB | BPF_NEG | BPF_AND | BPF_XOR | BPF_OR | BPF_MUL | BPF_END => true,
        BPF_DIV | BPF_MOD => src_is_const,
        BPF_LSH | BPF_RSH | BPF_ARSH => src_is_const && src.umax() < insn_bitness,
        _ => false,
    }
}

/// `maybe_fork_scalars`: a register that is exactly {-1, 0} (64-bit, else
/// 32-bit) is split into the two constants before AND/OR with a constant.
fn maybe_fork_scalars(dst: &mut Scalar) -> Option<Fork> {
    let alu32 = if dst.smin() == -1 && dst.smax() == 0 {
        false
    } else if dst.s32_min() == -1 && dst.s32_max() == 0 {
        true
    } else {
        return None;
    };
    let mut other = *dst;
    if alu32 {
        other.mark_reg32_known(0);
        dst.mark_reg32_known(u64::MAX);
    } else {
        other.mark_known(0);
        dst.mark_known(u64::MAX);
    }
    Some(Fork { dst: other, id_cleared: !alu32 })
}

/// `adjust_scalar_min_max_vals`: the new value of `dst` after the ALU op
/// `insn` (not MOV) with scalar operand `src`. For `BPF_K` the caller passes
/// `Scalar::known(insn.imm as i64 as u64)`, for NEG and END a copy of `dst`.
///
/// Unprivileged sanitation (`sanitize_val_alu`) and ids are the caller's; see
/// [`AluOutcome`].
#[inline]
pub fn adjust_scalar_min_max_vals(dst: &mut Scalar, src: &Scalar, insn: &Insn) -> AluOutcome {
    if let Some(out) = alu_on_known_constants(dst, src, insn) {
        return out;
    }
    adjust_scalar_min_max_vals_general(dst, src, insn)
}

/// The shortcut for the commonest case of straight-line code: both operands
/// fully known (`___mark_reg_known` form). Every transfer function then
/// collapses to the one concrete result and `reg_bounds_sync` pins all
/// bounds to it, so the outcome is computed directly; the unit test
/// `known_constants_match_general_path` proves it equal, bit for bit, to
/// the general path. `None` for what it does not cover (byte swaps, modulo,
/// shift amounts the kernel refuses to reason about, any non-constant operand).
#[inline]
fn alu_on_known_constants(dst: &mut Scalar, src: &Scalar, insn: &Insn) -> Option<AluOutcome> {
    let d = dst.var_off.value;
    let s = src.var_off.value;
    if !dst.is_known_form() || !src.is_known_form() {
        return None;
    }
    let opcode = op(insn.code);
    let v = alu_const_value(opcode, insn.class() == BPF_ALU64, insn.off == 1, d, s)?;
    *dst = Scalar::known(v);
    // NEG and constant AND/OR/XOR went through `__mark_reg_known`
    let id_cleared = matches!(opcode, BPF_NEG | BPF_AND | BPF_OR | BPF_XOR);
    Some(AluOutcome { marked_unknown: false, id_cleared, fork: None })
}

/// The BPF result of `d op s` for [`alu_on_known_constants`], or `None` for
/// what it leaves to the general path: out-of-range shifts (unknown result)
/// and BPF_MOD (7.3's `scalar*_min_max_*mod` keep a range, not the
/// constant), and ops that are not arithmetic.
fn alu_const_value(opcode: u8, alu64: bool, signed: bool, d: u64, s: u64) -> Option<u64> {
    // `is_safe_to_compute_dst_reg_range` bounds a shift by the whole 64-bit
    // amount, even for 32-bit shifts
    if matches!(opcode, BPF_LSH | BPF_RSH | BPF_ARSH) && s >= if alu64 { 64 } else { 32 } {
        return None;
    }
    matches!(opcode, BPF_ADD | BPF_SUB | BPF_MUL | BPF_DIV | BPF_OR | BPF_AND | BPF_XOR | BPF_LSH | BPF_RSH | BPF_ARSH | BPF_NEG)
        .then(|| bpf_alu_value(opcode, alu64, signed, d, s))
}

/// What the ALU op computes on concrete values (`signed`: `off == 1`
/// div/mod): [`bpf_isa::alu::alu64`] and `alu32`, the one home of what the
/// interpreter and the JITs do (x / 0 = 0, x % 0 = x, shift
/// amounts masked to the width, 32-bit ops zero-extend). Ops that are not
/// arithmetic (MOV, END) give `d`.
pub(crate) fn bpf_alu_value(opcode: u8, alu64: bool, signed: bool, d: u64, s: u64) -> u64 {
    let off = i16::from(signed && matches!(opcode, BPF_DIV | BPF_MOD));
    let r = if alu64 { bpf_isa::alu::alu64(opcode, off, d, s) } else { bpf_isa::alu::alu32(opcode, off, d, s) };
    if opcode == BPF_MOV { d } else { r.unwrap_or(d) }
}

/// The full `adjust_scalar_min_max_vals`, for any operands (out of line:
/// the known-constant shortcut stays small where it is inlined).
#[inline(never)]
fn adjust_scalar_min_max_vals_general(dst: &mut Scalar, src: &Scalar, insn: &Insn) -> AluOutcome {
    let mut out = AluOutcome::default();
    let opcode = op(insn.code);
    let alu32 = insn.class() != BPF_ALU64;

    if !is_safe_to_compute_dst_reg_range(insn, src) {
        *dst = Scalar::unknown();
        out.marked_unknown = true;
        out.id_cleared = true;
        return out;
    }

    let by_zero = if alu32 { src.u32_min() == 0 } else { src.umin() == 0 };
    match opcode {
        BPF_ADD => {
            scalar32_min_max_add(dst, src);
            scalar_min_max_add(dst, src);
            dst.var_off = tnum_add(dst.var_off, src.var_off);
        }
        BPF_SUB => {
            scalar32_min_max_sub(dst, src);
            scalar_min_max_sub(dst, src);
            dst.var_off = tnum_sub(dst.var_off, src.var_off);
        }
        BPF_NEG => {
            let old = *dst;
            *dst = Scalar::known(0);
            out.id_cleared = true;
            scalar32_min_max_sub(dst, &old);
            scalar_min_max_sub(dst, &old);
            dst.var_off = tnum_neg(old.var_off);
        }
        BPF_MUL => {
            dst.var_off = tnum_mul(dst.var_off, src.var_off);
            scalar32_min_max_mul(dst, src);
            scalar_min_max_mul(dst, src);
        }
        // BPF defines x / 0 = 0 and x % 0 = x.
        BPF_DIV if by_zero => dst.mark_known(0),
        BPF_DIV => match (alu32, insn.off == 1) {
            (true, true) => scalar32_min_max_sdiv(dst, src),
            (true, false) => scalar32_min_max_udiv(dst, src),
            (false, true) => scalar_min_max_sdiv(dst, src),
            (false, false) => scalar_min_max_udiv(dst, src),
        },
        BPF_MOD if by_zero => {}
        BPF_MOD => match (alu32, insn.off == 1) {
            (true, true) => scalar32_min_max_smod(dst, src),
            (true, false) => scalar32_min_max_umod(dst, src),
            (false, true) => scalar_min_max_smod(dst, src),
            (false, false) => scalar_min_max_umod(dst, src),
        },
        BPF_AND => {
            if tnum_is_const(src.var_off) {
                out.fork = maybe_fork_scalars(dst);
                if out.fork.is_some_and(|f| f.id_cleared) {
                    out.id_cleared = true;
                }
            }
            dst.var_off = tnum_and(dst.var_off, src.var_off);
            scalar32_min_max_and(dst, src);
            out.id_cleared |= scalar_min_max_and(dst, src);
        }
        BPF_OR => {
            if tnum_is_const(src.var_off) {
                out.fork = maybe_fork_scalars(dst);
                if out.fork.is_some_and(|f| f.id_cleared) {
                    out.id_cleared = true;
                }
            }
            dst.var_off = tnum_or(dst.var_off, src.var_off);
            scalar32_min_max_or(dst, src);
            out.id_cleared |= scalar_min_max_or(dst, src);
        }
        BPF_XOR => {
            dst.var_off = tnum_xor(dst.var_off, src.var_off);
            scalar32_min_max_xor(dst, src);
            out.id_cleared |= scalar_min_max_xor(dst, src);
        }
        BPF_LSH => {
            if alu32 {
                scalar32_min_max_lsh(dst, src)
            } else {
                scalar_min_max_lsh(dst, src)
            }
        }
        BPF_RSH => {
            if alu32 {
                scalar32_min_max_rsh(dst, src)
            } else {
                scalar_min_max_rsh(dst, src)
            }
        }
        BPF_ARSH => {
            if alu32 {
                scalar32_min_max_arsh(dst, src)
            } else {
                scalar_min_max_arsh(dst, src)
            }
        }
        BPF_END => out.id_cleared |= scalar_byte_swap(dst, insn),
        _ => {}
    }

    // ALU32 results zero-extend; END handled its width itself.
    if alu32 && opcode != BPF_END {
        zext_32_to_64(dst);
    }
    reg_bounds_sync(dst);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The known-constant shortcut against the general path: whole Scalar and
    /// outcome, every op and width, edge and random values.
    #[test]
    fn known_constants_match_general_path() {
        const OPS: [u8; 12] = [BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_MOD, BPF_OR, BPF_AND, BPF_XOR, BPF_LSH, BPF_RSH, BPF_ARSH, BPF_NEG];
        let mut vals: Vec<u64> = Vec::new();
        for e in [
            0u64,
            1,
            2,
            3,
            7,
            31,
            32,
            33,
            63,
            64,
            65,
            0x7f,
            0x80,
            0xff,
            0x7fff,
            0xffff,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
            1 << 32,
            1 << 62,
            1 << 63,
            u64::MAX,
            i32::MIN as i64 as u64,
            i64::MIN as u64 + 1,
        ] {
            for d in [0u64, 1, u64::MAX] {
                vals.push(e.wrapping_add(d));
            }
        }
        // xorshift64*, deterministic
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..40 {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let r = x.wrapping_mul(0x2545_f491_4f6c_dd1d);
            vals.push(r);
            vals.push(r >> (r % 64));
            vals.push(r as i8 as i64 as u64);
        }
        let (mut fast, mut total) = (0u32, 0u32);
        for &opcode in &OPS {
            for class in [BPF_ALU, BPF_ALU64] {
                for off in [0i16, 1] {
                    if off == 1 && !matches!(opcode, BPF_DIV | BPF_MOD) {
                        continue;
                    }
                    for src_k in [false, true] {
                        let code = class | opcode | if src_k { BPF_K } else { BPF_X };
                        for &d in &vals {
                            for &s in &vals {
                                // BPF_K operands are sign-extended imm32s
                                let s = if src_k { s as i32 as i64 as u64 } else { s };
                                let insn = Insn { code, dst: 1, src: 2, off, imm: s as i32 };
                                let src_s = if opcode == BPF_NEG { Scalar::known(d) } else { Scalar::known(s) };
                                let mut a = Scalar::known(d);
                                let mut b = Scalar::known(d);
                                total += 1;
                                let Some(oa) = alu_on_known_constants(&mut a, &src_s, &insn) else {
                                    continue;
                                };
                                fast += 1;
                                let ob = adjust_scalar_min_max_vals_general(&mut b, &src_s, &insn);
                                assert_eq!((a, oa), (b, ob), "code {code:#04x} off {off}: {d:#x} op {s:#x}");
                            }
                        }
                    }
                }
            }
        }
        // only MOD and out-of-range shift amounts (most random amounts) fall back
        assert!(fast * 3 > total * 2, "shortcut taken {fast} of {total}");
        // a non-constant operand always takes the general path
        let mut u = Scalar::unknown();
        let insn = Insn { code: BPF_ALU64 | BPF_ADD | BPF_K, dst: 1, src: 0, off: 0, imm: 1 };
        assert!(alu_on_known_constants(&mut u, &Scalar::known(1), &insn).is_none());
    }
}

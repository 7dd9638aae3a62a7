//! The scalar domain of the 7.3 verifier: what `struct bpf_reg_state` knows
//! about a number (`var_off`, `r64`, `r32`), how the verifier keeps the three
//! consistent (`reg_bounds_sync`), and the transfer functions of
//! `kernel/bpf/verifier.c` for ALU ops ([`alu`]) and conditional jumps
//! ([`branch`]), plus the log text of `kernel/bpf/log.c` ([`print`](mod@print)).
//!
//! 7.3 replaced the `smin/smax/umin/umax` (and 32-bit) fields of older
//! kernels with two circular ranges, `r64` and `r32` ([`cnum`]); the eight
//! classic bounds are now views (`reg_smin()` ...). Pointer registers use the
//! same three fields for their variable offset, so [`Scalar`] is meant to be
//! embedded in the verifier's register state for every register type.
//!
//! What stays with the verifier proper: register types, scalar ids and
//! deltas (the functions here say when the kernel clears them), precision,
//! `sanitize_*` for unprivileged programs, and pushing the states that
//! [`alu::AluOutcome::fork`] and [`branch::BranchRegs`] describe.
//!
//! - ALU (not MOV): [`alu::adjust_scalar_min_max_vals`]; MOV: [`scalar_mov`],
//!   `BPF_K` moves: [`Scalar::known`]; helper results: [`Scalar::unknown`].
//! - Conditional jumps: [`branch::scalar_cond_jmp`] (or
//!   [`branch::is_scalar_branch_taken`] on the verifier's own scratch copies).
//! - Linked scalars: [`sync_linked_scalar`]; loads: [`coerce_reg_to_size`],
//!   [`coerce_reg_to_size_sx`]; invariants: [`reg_bounds_sanity_check`].
//! - Log: [`print::print_scalar`], and for pointers
//!   [`print::print_scalar_ranges`], [`print::tnum_strn`], [`print::verbose_snum`].

pub mod alu;
pub mod branch;
pub mod cnum;
#[cfg(test)]
mod fuzz;
pub mod print;

pub use cnum::{Cnum32, Cnum64, cnum32_from_cnum64, cnum64_cnum32_intersect};

use super::tnum::*;

/// `BPF_ADD_CONST64`: in a scalar id, "this register is `base id + delta`,
/// linked by a 64-bit add".
pub const BPF_ADD_CONST64: u32 = 1 << 31;
/// `BPF_ADD_CONST32`: as [`BPF_ADD_CONST64`] for a 32-bit add.
pub const BPF_ADD_CONST32: u32 = 1 << 30;
/// `BPF_ADD_CONST`: either link flag.
pub const BPF_ADD_CONST: u32 = BPF_ADD_CONST64 | BPF_ADD_CONST32;

/// The numeric knowledge of a register: bits (`var_off`) and the 64- and
/// 32-bit circular ranges (`r64`, `r32`), as `struct bpf_reg_state` holds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scalar {
    pub var_off: Tnum,
    pub r64: Cnum64,
    pub r32: Cnum32,
}

impl Default for Scalar {
    fn default() -> Scalar {
        Scalar::unknown()
    }
}

impl Scalar {
    /// A register with value `imm` (`__mark_reg_known`).
    pub fn known(imm: u64) -> Scalar {
        let mut s = Scalar::unknown();
        s.mark_known(imm);
        s
    }

    /// A completely unknown value (`__mark_reg_unknown`).
    pub fn unknown() -> Scalar {
        Scalar { var_off: TNUM_UNKNOWN, r64: Cnum64::UNBOUNDED, r32: Cnum32::UNBOUNDED }
    }

    /// `reg_smin`.
    pub fn smin(&self) -> i64 {
        self.r64.smin()
    }
    /// `reg_smax`.
    pub fn smax(&self) -> i64 {
        self.r64.smax()
    }
    /// `reg_umin`.
    pub fn umin(&self) -> u64 {
        self.r64.umin()
    }
    /// `reg_umax`.
    pub fn umax(&self) -> u64 {
        self.r64.umax()
    }
    /// `reg_s32_min`.
    pub fn s32_min(&self) -> i32 {
        self.r32.smin()
    }
    /// `reg_s32_max`.
    pub fn s32_max(&self) -> i32 {
        self.r32.smax()
    }
    /// `reg_u32_min`.
    pub fn u32_min(&self) -> u32 {
        self.r32.umin()
    }
    /// `reg_u32_max`.
    pub fn u32_max(&self) -> u32 {
        self.r32.umax()
    }

    /// `reg_set_srange32`.
    pub fn set_srange32(&mut self, smin: i32, smax: i32) {
        self.r32 = Cnum32::from_srange(smin, smax);
    }
    /// `reg_set_urange32`.
    pub fn set_urange32(&mut self, umin: u32, umax: u32) {
        self.r32 = Cnum32::from_urange(umin, umax);
    }
    /// `reg_set_srange64`.
    pub fn set_srange64(&mut self, smin: i64, smax: i64) {
        self.r64 = Cnum64::from_srange(smin, smax);
    }
    /// `reg_set_urange64`.
    pub fn set_urange64(&mut self, umin: u64, umax: u64) {
        self.r64 = Cnum64::from_urange(umin, umax);
    }

    /// `___mark_reg_known`: the value is `imm` (the register's id is the
    /// caller's business; `__mark_reg_known` also clears it).
    pub fn mark_known(&mut self, imm: u64) {
        self.var_off = tnum_const(imm);
        self.r64 = Cnum64::from_urange(imm, imm);
        self.r32 = Cnum32::from_urange(imm as u32, imm as u32);
    }

    /// `__mark_reg32_known`: the low half is `imm`, the high half and `r64`
    /// stay as they are.
    pub fn mark_reg32_known(&mut self, imm: u64) {
        self.var_off = tnum_const_subreg(self.var_off, imm as u32);
        self.r32 = Cnum32::from_urange(imm as u32, imm as u32);
    }

    /// `__mark_reg32_unbounded`.
    pub fn mark_reg32_unbounded(&mut self) {
        self.r32 = Cnum32::UNBOUNDED;
    }
    /// `__mark_reg64_unbounded`.
    pub fn mark_reg64_unbounded(&mut self) {
        self.r64 = Cnum64::UNBOUNDED;
    }
    /// `__mark_reg_unbounded`: both ranges forgotten, `var_off` kept.
    pub fn mark_reg_unbounded(&mut self) {
        self.mark_reg64_unbounded();
        self.mark_reg32_unbounded();
    }
    /// `reset_reg64_and_tnum`.
    pub fn reset_reg64_and_tnum(&mut self) {
        self.mark_reg64_unbounded();
        self.var_off = TNUM_UNKNOWN;
    }
    /// `reset_reg32_and_tnum`.
    pub fn reset_reg32_and_tnum(&mut self) {
        self.mark_reg32_unbounded();
        self.var_off = TNUM_UNKNOWN;
    }

    /// `tnum_is_const(reg->var_off)`: the register holds one known value.
    pub fn is_const(&self) -> bool {
        tnum_is_const(self.var_off)
    }

    /// Whether this is exactly `Scalar::known(v)` for its `var_off.value`
    /// (what `___mark_reg_known` leaves): field compares, no temporary.
    #[inline]
    pub fn is_known_form(&self) -> bool {
        let v = self.var_off.value;
        self.var_off.mask == 0 && self.r64.size == 0 && self.r64.base == v && self.r32.size == 0 && self.r32.base == v as u32
    }

    /// `is_reg_const` for a scalar: the value, or its low half for `subreg32`,
    /// is known.
    pub fn is_reg_const(&self, subreg32: bool) -> bool {
        tnum_is_const(if subreg32 { tnum_subreg(self.var_off) } else { self.var_off })
    }

    /// `reg_const_value`, assuming [`Scalar::is_reg_const`].
    pub fn reg_const_value(&self, subreg32: bool) -> u64 {
        if subreg32 { tnum_subreg(self.var_off).value } else { self.var_off.value }
    }

    /// `get_reg_width`: how many low bits the unsigned maximum needs.
    pub fn reg_width(&self) -> u32 {
        fls64(self.umax())
    }
}

/// `cnum32_from_tnum`: the arc spanned by a tnum's low half. With the sign bit
/// possibly set the span is taken signed (min: sign bit and the other known
/// bits; max: no sign bit and all other bits).
pub fn cnum32_from_tnum(t: Tnum) -> Cnum32 {
    let t = tnum_subreg(t);
    let sign = 0x8000_0000u64;
    if t.mask & sign != 0 || t.value & sign != 0 {
        Cnum32::from_srange((t.value | (t.mask & sign)) as u32 as i32, (t.value | (t.mask & !sign)) as u32 as i32)
    } else {
        Cnum32::from_urange(t.value as u32, (t.value | t.mask) as u32)
    }
}

/// `cnum64_from_tnum`, as [`cnum32_from_tnum`] for 64 bits.
pub fn cnum64_from_tnum(t: Tnum) -> Cnum64 {
    let sign = 1u64 << 63;
    if t.mask & sign != 0 || t.value & sign != 0 {
        Cnum64::from_srange((t.value | (t.mask & sign)) as i64, (t.value | (t.mask & !sign)) as i64)
    } else {
        Cnum64::from_urange(t.value, t.value | t.mask)
    }
}

/// `__update_reg32_bounds`: narrow `r32` by what the bits allow.
pub fn update_reg32_bounds(reg: &mut Scalar) {
    reg.r32.intersect_with(cnum32_from_tnum(reg.var_off));
}

/// `__update_reg64_bounds`: narrow `r64` by the bits, and turn the register
/// into a constant when the unsigned range and the tnum share one value only.
pub fn update_reg64_bounds(reg: &mut Scalar) {
    reg.r64.intersect_with(cnum64_from_tnum(reg.var_off));

    let umin = reg.umin();
    let umax = reg.umax();
    let tnum_next = tnum_step(reg.var_off, umin);
    let umin_in_tnum = (umin & !reg.var_off.mask) == reg.var_off.value;
    let tmax = reg.var_off.value | reg.var_off.mask;
    if umin_in_tnum && tnum_next > umax {
        // Overlap only in umin.
        reg.mark_known(umin);
    } else if !umin_in_tnum && tnum_next == tmax {
        // Overlap only in the tnum's largest member.
        reg.mark_known(tmax);
    } else if !umin_in_tnum && tnum_next <= umax && tnum_step(reg.var_off, tnum_next) > umax {
        // Overlap only in one member strictly inside the range.
        reg.mark_known(tnum_next);
    }
}

/// `__update_reg_bounds`.
pub fn update_reg_bounds(reg: &mut Scalar) {
    update_reg32_bounds(reg);
    update_reg64_bounds(reg);
}

/// `deduce_bounds_32_from_64`.
pub fn deduce_bounds_32_from_64(reg: &mut Scalar) {
    reg.r32.intersect_with(cnum32_from_cnum64(reg.r64));
}

/// `deduce_bounds_64_from_32`.
pub fn deduce_bounds_64_from_32(reg: &mut Scalar) {
    reg.r64 = cnum64_cnum32_intersect(reg.r64, reg.r32);
}

/// `__reg_deduce_bounds`.
pub fn reg_deduce_bounds(reg: &mut Scalar) {
    deduce_bounds_32_from_64(reg);
    deduce_bounds_64_from_32(reg);
}

/// `__reg_bound_offset`: learn bits from the unsigned ranges.
pub fn reg_bound_offset(reg: &mut Scalar) {
    let var64_off = tnum_intersect(reg.var_off, tnum_range(reg.umin(), reg.umax()));
    let var32_off = tnum_intersect(tnum_subreg(var64_off), tnum_range(u64::from(reg.u32_min()), u64::from(reg.u32_max())));
    reg.var_off = tnum_or(tnum_clear_subreg(var64_off), var32_off);
}

/// `range_bounds_violation`: a range is empty (the register cannot exist,
/// e.g. on a dead branch).
pub fn range_bounds_violation(reg: &Scalar) -> bool {
    reg.r32.is_empty() || reg.r64.is_empty()
}

/// `reg_bounds_sync`: make `var_off`, `r64` and `r32` agree, in the kernel's
/// order of steps (the result depends on it).
pub fn reg_bounds_sync(reg: &mut Scalar) {
    // a known constant is already in sync (every step derives the same
    // single value from it): the common result of constant arithmetic
    if reg.is_known_form() {
        return;
    }
    reg_bounds_sync_steps(reg);
}

/// The steps of `reg_bounds_sync`.
fn reg_bounds_sync_steps(reg: &mut Scalar) {
    if range_bounds_violation(reg) {
        return;
    }
    update_reg_bounds(reg);
    reg_deduce_bounds(reg);
    reg_deduce_bounds(reg);
    reg_bound_offset(reg);
    update_reg_bounds(reg);
}

/// `const_tnum_range_mismatch`.
pub fn const_tnum_range_mismatch(reg: &Scalar) -> bool {
    if !tnum_is_const(reg.var_off) {
        return false;
    }
    !reg.r64.is_const() || reg.r64.base != reg.var_off.value
}

/// `const_tnum_range_mismatch_32`.
pub fn const_tnum_range_mismatch_32(reg: &Scalar) -> bool {
    if !tnum_subreg_is_const(reg.var_off) {
        return false;
    }
    !reg.r32.is_const() || u64::from(reg.r32.base) != tnum_subreg(reg.var_off).value
}

/// Whether [`reg_bounds_sanity_check`] passes: its three tests without
/// the message, for the hot path of every ALU insn.
#[inline]
pub fn reg_bounds_sane(reg: &Scalar) -> bool {
    !range_bounds_violation(reg) && !const_tnum_range_mismatch(reg) && !const_tnum_range_mismatch_32(reg)
}

/// `reg_bounds_sanity_check`: `Err` carries the kernel's message (without the
/// `verifier bug: ` prefix and newline that `verifier_bug()` adds). On error the
/// kernel fails with `-EFAULT` under `BPF_F_TEST_REG_INVARIANTS` and otherwise
/// calls [`Scalar::mark_reg_unbounded`] and goes on.
pub fn reg_bounds_sanity_check(reg: &Scalar, ctx: &str) -> Result<(), String> {
    let msg = if range_bounds_violation(reg) {
        "range bounds violation"
    } else if const_tnum_range_mismatch(reg) {
        "const tnum out of sync with range bounds"
    } else if const_tnum_range_mismatch_32(reg) {
        "const subreg tnum out of sync with range bounds"
    } else {
        return Ok(());
    };
    Err(format!(
        "REG INVARIANTS VIOLATION ({ctx}): {msg} r64={{.base={:#x}, .size={:#x}}} r32={{.base={:#x}, .size={:#x}}} var_off=({:#x}, {:#x})",
        reg.r64.base, reg.r64.size, reg.r32.base, reg.r32.size, reg.var_off.value, reg.var_off.mask
    ))
}

/// `zext_32_to_64`: an ALU32 result zero-extends into the register.
pub fn zext_32_to_64(reg: &mut Scalar) {
    reg.var_off = tnum_subreg(reg.var_off);
    reg.set_urange64(u64::from(reg.u32_min()), u64::from(reg.u32_max()));
}

/// `coerce_reg_to_size`: truncate to `size` bytes (`size < 8`), as a narrow
/// load or `bswap16/32` does.
pub fn coerce_reg_to_size(reg: &mut Scalar, size: u8) {
    reg.var_off = tnum_cast(reg.var_off, size);
    let mask = 1u64.checked_shl(u32::from(size) * 8).map_or(u64::MAX, |b| b - 1);
    if reg.umin() & !mask == reg.umax() & !mask {
        reg.set_urange64(reg.umin() & mask, reg.umax() & mask);
    } else {
        reg.set_urange64(0, mask);
    }
    // Below 32 bits the 32-bit range was truncated as well; relearn it.
    if size < 4 {
        reg.mark_reg32_unbounded();
    }
    reg_bounds_sync(reg);
}

/// Sign-extends the low `size` bytes of `v` to 64 bits.
fn sext(v: u64, size: u8) -> i64 {
    match size {
        1 => i64::from(v as i8),
        2 => i64::from(v as i16),
        _ => i64::from(v as i32),
    }
}

/// `set_sext64_default_val`.
fn set_sext64_default_val(reg: &mut Scalar, size: u8) {
    let (min, max) = match size {
        1 => (i64::from(i8::MIN), i64::from(i8::MAX)),
        2 => (i64::from(i16::MIN), i64::from(i16::MAX)),
        _ => (i64::from(i32::MIN), i64::from(i32::MAX)),
    };
    reg.set_srange64(min, max);
    reg.set_srange32(min as i32, max as i32);
    reg.var_off = TNUM_UNKNOWN;
}

/// `coerce_reg_to_size_sx`: sign-extend the low `size` bytes (1, 2, 4) to 64
/// bits (`movsx` and sign-extending loads; other sizes act as 4). No `reg_bounds_sync` here, as in
/// the kernel; a load syncs afterwards.
pub fn coerce_reg_to_size_sx(reg: &mut Scalar, size: u8) {
    let num_bits = u32::from(size) * 8;
    if tnum_is_const(reg.var_off) {
        let v = sext(reg.var_off.value, size) as u64;
        reg.var_off = tnum_const(v);
        reg.r64 = Cnum64::from_urange(v, v);
        reg.r32 = Cnum32::from_urange(v as u32, v as u32);
        return;
    }
    let top = |v: u64| v.checked_shr(num_bits).map_or(0, |t| t << num_bits);
    let top_smax = top(reg.smax() as u64);
    let top_smin = top(reg.smin() as u64);
    if top_smax == top_smin {
        let init_max = sext(reg.smax() as u64, size);
        let init_min = sext(reg.smin() as u64, size);
        let s64_max = init_max.max(init_min);
        let s64_min = init_max.min(init_min);
        if (s64_max >= 0) == (s64_min >= 0) {
            reg.set_srange64(s64_min, s64_max);
            reg.set_srange32(s64_min as i32, s64_max as i32);
            reg.var_off = tnum_range(s64_min as u64, s64_max as u64);
            return;
        }
    }
    set_sext64_default_val(reg, size);
}

/// `set_sext32_default_val`.
fn set_sext32_default_val(reg: &mut Scalar, size: u8) {
    if size == 1 {
        reg.set_srange32(i32::from(i8::MIN), i32::from(i8::MAX));
    } else {
        reg.set_srange32(i32::from(i16::MIN), i32::from(i16::MAX));
    }
    reg.var_off = tnum_subreg(TNUM_UNKNOWN);
}

/// `coerce_subreg_to_size_sx`: sign-extend the low `size` bytes (1, 2) to 32
/// bits (`w1 = (s8)w2`). The caller zero-extends and syncs.
pub fn coerce_subreg_to_size_sx(reg: &mut Scalar, size: u8) {
    let num_bits = u32::from(size) * 8;
    if tnum_is_const(reg.var_off) {
        // The kernel sign-extends into the whole 64-bit tnum here.
        let v = sext(u64::from(reg.var_off.value as u32), size) as u64;
        reg.var_off = tnum_const(v);
        reg.set_srange32(v as i32, v as i32);
        return;
    }
    let top = |v: u32| v.checked_shr(num_bits).map_or(0, |t| t << num_bits);
    let top_smax = top(reg.s32_max() as u32);
    let top_smin = top(reg.s32_min() as u32);
    if top_smax == top_smin {
        let init_max = sext(u64::from(reg.s32_max() as u32), size) as i32;
        let init_min = sext(u64::from(reg.s32_min() as u32), size) as i32;
        let s32_max = init_max.max(init_min);
        let s32_min = init_max.min(init_min);
        if (s32_min >= 0) == (s32_max >= 0) {
            reg.set_srange32(s32_min, s32_max);
            reg.var_off = tnum_subreg(tnum_range(s32_min as i64 as u64, s32_max as i64 as u64));
            return;
        }
    }
    set_sext32_default_val(reg, size);
}

/// The numeric part of `BPF_MOV` with a scalar source (`check_alu_op`):
/// `r1 = r2`, `r1 = (s8/s16/s32)r2`, `w1 = w2`, `w1 = (s8/s16)w2`. Ids are the
/// caller's: `assign_scalar_id_before_mov()` / `clear_scalar_id()` depend on
/// [`Scalar::umax`] of the source (`no_sext`, `get_reg_width`).
pub fn scalar_mov(src: &Scalar, alu64: bool, off: i16) -> Scalar {
    let mut dst = *src;
    if alu64 {
        if off != 0 {
            coerce_reg_to_size_sx(&mut dst, (off >> 3) as u8);
        }
    } else {
        if off != 0 {
            coerce_subreg_to_size_sx(&mut dst, (off >> 3) as u8);
        }
        zext_32_to_64(&mut dst);
        reg_bounds_sync(&mut dst);
    }
    dst
}

/// `add_scalar_to_reg`: `reg += val` as the verifier applies a known delta.
pub fn add_scalar_to_reg(reg: &mut Scalar, val: i64) {
    if val == 0 {
        return;
    }
    let k = Scalar::known(val as u64);
    alu::scalar32_min_max_add(reg, &k);
    alu::scalar_min_max_add(reg, &k);
    reg.var_off = tnum_add(reg.var_off, k.var_off);
    reg_bounds_sync(reg);
}

/// The numeric part of `sync_linked_regs` for a register whose delta differs
/// from the known register's: `known + delta`, zero-extended if either link
/// is a 32-bit one. Ids and deltas stay the linked register's own.
pub fn sync_linked_scalar(known: &Scalar, delta: i64, add_const32: bool) -> Scalar {
    let mut reg = *known;
    let k = Scalar::known(delta as u64);
    alu::scalar32_min_max_add(&mut reg, &k);
    alu::scalar_min_max_add(&mut reg, &k);
    reg.var_off = tnum_add(reg.var_off, k.var_off);
    if add_const32 {
        zext_32_to_64(&mut reg);
    }
    reg_bounds_sync(&mut reg);
    reg
}

/// `__mark_reg_s32_range`: intersect with `[s32_min, s32_max]` in both widths
/// (helper return ranges), then sync. The caller runs
/// [`reg_bounds_sanity_check`] with ctx `"s32_range"`.
pub fn mark_reg_s32_range(reg: &mut Scalar, s32_min: i32, s32_max: i32) {
    reg.set_srange32(reg.s32_min().max(s32_min), reg.s32_max().min(s32_max));
    reg.set_srange64(reg.smin().max(i64::from(s32_min)), reg.smax().min(i64::from(s32_max)));
    reg_bounds_sync(reg);
}

/// `range_within` (states.c): every value of `cur` is allowed by `old`.
pub fn range_within(old: &Scalar, cur: &Scalar) -> bool {
    old.r64.is_subset(cur.r64) && old.r32.is_subset(cur.r32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_sync() {
        let s = Scalar::known(5);
        assert_eq!((s.smin(), s.umax(), s.s32_min(), s.u32_max()), (5, 5, 5, 5));
        let mut m = Scalar::unknown();
        m.var_off = Tnum::new(0, 0xff);
        reg_bounds_sync(&mut m);
        assert_eq!((m.umin(), m.umax(), m.smin(), m.smax()), (0, 255, 0, 255));
        assert_eq!((m.u32_min(), m.u32_max()), (0, 255));
    }

    #[test]
    fn a_known_constant_is_its_own_sync() {
        // reg_bounds_sync's shortcut skips nothing the steps would change
        for v in [
            0,
            1,
            5,
            0x7f,
            0x80,
            0xffff_ffff,
            0x1_0000_0000,
            0x7fff_ffff,
            0x8000_0000,
            i64::MAX as u64,
            i64::MIN as u64,
            u64::MAX,
            u64::MAX - 1,
            0xdead_beef_0000_0001,
        ] {
            let mut s = Scalar::known(v);
            reg_bounds_sync_steps(&mut s);
            assert_eq!(s, Scalar::known(v), "{v:#x}");
        }
    }

    #[test]
    fn sanity_message() {
        let mut s = Scalar::known(0);
        s.r64 = Cnum64::EMPTY;
        let e = reg_bounds_sanity_check(&s, "alu").unwrap_err();
        assert_eq!(
            e,
            "REG INVARIANTS VIOLATION (alu): range bounds violation r64={.base=0xffffffffffffffff, .size=0xffffffffffffffff} r32={.base=0x0, .size=0x0} var_off=(0x0, 0x0)"
        );
    }
}

//! ALU instructions on registers: `check_alu_op`, `adjust_reg_min_max_vals`
//! and `adjust_ptr_min_max_vals` (pointer arithmetic, with the rules for
//! unprivileged loaders: `sanitize_check_bounds`). The numbers themselves
//! are [`super::scalar`]'s.
//!
//! For loaders that may not bypass Spectre v1 mitigations, pointer ALU is
//! sanitized as 7.3 does it (`sanitize_ptr_alu`, `sanitize_val_alu`): the
//! masking window each insn needs is recorded for the fixups, paths that
//! would need different windows are refused, and the truncated pointer is
//! explored on a speculative path.

use bpf_isa::Insn;
use bpf_isa::insn::op::*;

use super::diag::{ModReason, bpf_diag_reg_type_plain};
use super::do_check::*;
use super::errno::{ENOMEM, EOPNOTSUPP};
use super::reg::*;
use super::scalar::alu::adjust_scalar_min_max_vals;
use super::scalar::print::tnum_strn;
use super::scalar::*;
use super::state::*;
use super::tnum::*;

/// `bpf_alu_string`.
fn alu_string(opcode: u8) -> &'static str {
    match opcode {
        BPF_ADD => "+=",
        BPF_SUB => "-=",
        BPF_MUL => "*=",
        BPF_DIV => "/=",
        BPF_OR => "|=",
        BPF_AND => "&=",
        BPF_LSH => "<<=",
        BPF_RSH => ">>=",
        BPF_NEG => "neg",
        BPF_MOD => "%=",
        BPF_XOR => "^=",
        BPF_MOV => "=",
        BPF_ARSH => "s>>=",
        BPF_END => "endian",
        _ => "???",
    }
}

/// Why pointer ALU could not be sanitized (`REASON_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reason {
    Bounds,
    Type,
    Paths,
    Limit,
    Stack,
}

/// `struct bpf_sanitize_info`.
#[derive(Clone, Copy, Debug, Default)]
struct SanitizeInfo {
    aux: PassAux,
    mask_to_left: bool,
}

/// `sanitize_needed`.
fn sanitize_needed(opcode: u8) -> bool {
    opcode == BPF_ADD || opcode == BPF_SUB
}

/// `get_reg_width`.
fn reg_width(r: &RegState) -> u32 {
    fls64(r.s.umax())
}

impl Env<'_, '_> {
    /// `assign_scalar_id_before_mov`.
    fn assign_scalar_id_before_mov(&mut self, regno: usize) {
        let r = self.regs()[regno];
        if r.typ != SCALAR_VALUE {
            return;
        }
        let mut r = r;
        if r.id & BPF_ADD_CONST != 0 {
            r.clear_scalar_id();
        }
        if r.id == 0 && !tnum_is_const(r.s.var_off) {
            self.id_gen += 1;
            r.id = self.id_gen;
        }
        self.regs_mut()[regno] = r;
    }

    /// `assign_scalar_id_before_mov` on a spilled register.
    pub(crate) fn assign_scalar_id_to(&mut self, r: &mut RegState) {
        if r.typ != SCALAR_VALUE {
            return;
        }
        if r.id & BPF_ADD_CONST != 0 {
            r.clear_scalar_id();
        }
        if r.id == 0 && !tnum_is_const(r.s.var_off) {
            self.id_gen += 1;
            r.id = self.id_gen;
        }
    }

    /// `check_alu_op`.
    pub(crate) fn check_alu_op(&mut self, insn: &Insn) -> VResult<()> {
        let opcode = insn.opcode();
        let dst = insn.dst as usize;
        let src = insn.src as usize;
        let alu64 = insn.class() == BPF_ALU64;
        let target = self.diag_reg_target(self.cur.curframe(), dst);
        self.diag_mod_begin(target, None, ModReason::Write);
        if opcode == BPF_END || opcode == BPF_NEG {
            self.check_reg_src(dst)?;
            if self.is_pointer_value(dst) {
                self.verbose(&format!("R{dst} pointer arithmetic prohibited\n"));
                return errno(EACCES);
            }
            if self.regs()[dst].typ == SCALAR_VALUE {
                self.check_reg_dst(dst, false)?;
                let s = self.regs()[dst].s;
                self.adjust_scalar(dst, &s, insn)?;
            } else {
                self.check_reg_dst(dst, true)?;
            }
        } else if opcode == BPF_MOV {
            if insn.is_src_x() {
                if insn.off == BPF_ADDR_SPACE_CAST && !self.input.has_arena {
                    self.verbose("addr_space_cast insn can only be used in a program that has an associated arena\n");
                    return errno(EINVAL);
                }
                self.check_reg_src(src)?;
            }
            self.check_reg_dst(dst, false)?;
            if insn.is_src_x() {
                self.check_mov_reg(insn, dst, src, alu64)?;
            } else {
                let v = if alu64 { insn.imm as i64 as u64 } else { insn.imm as u32 as u64 };
                let mut r = RegState::known(v);
                r.precise = !self.bpf_capable();
                self.regs_mut()[dst] = r;
            }
        } else {
            if insn.is_src_x() {
                self.check_reg_src(src)?;
            }
            self.check_reg_src(dst)?;
            if (opcode == BPF_MOD || opcode == BPF_DIV) && !insn.is_src_x() && insn.imm == 0 {
                self.verbose("div by zero\n");
                return errno(EINVAL);
            }
            if matches!(opcode, BPF_LSH | BPF_RSH | BPF_ARSH) && !insn.is_src_x() {
                let size = if alu64 { 64 } else { 32 };
                if insn.imm < 0 || insn.imm >= size {
                    self.verbose(&format!("invalid shift {}\n", insn.imm));
                    return errno(EINVAL);
                }
            }
            self.check_reg_dst(dst, false)?;
            self.adjust_reg_min_max_vals(insn)?;
        }
        self.reg_bounds_sanity_check(dst, "alu")?;
        self.diag_mod_end();
        Ok(())
    }

    /// `reg_bounds_sanity_check`: with `BPF_F_TEST_REG_INVARIANTS` a
    /// violated invariant is a verifier bug.
    #[inline]
    pub(crate) fn reg_bounds_sanity_check(&mut self, regno: usize, ctx: &str) -> VResult<()> {
        let r = &self.regs()[regno];
        // the common case, a scalar in sync, is a few compares; the message
        // is built only on a violation
        if r.typ != SCALAR_VALUE || reg_bounds_sane(&r.s) {
            return Ok(());
        }
        self.reg_bounds_insane(regno, ctx)
    }

    /// The violation path of [`Self::reg_bounds_sanity_check`].
    #[cold]
    #[inline(never)]
    fn reg_bounds_insane(&mut self, regno: usize, ctx: &str) -> VResult<()> {
        let r = &self.regs()[regno];
        if let Err(msg) = reg_bounds_sanity_check(&r.s, ctx) {
            if self.input.test_reg_invariants {
                self.verbose(&format!("verifier bug: {msg}\n"));
                return errno(EFAULT);
            }
            let cap = self.bpf_capable();
            self.regs_mut()[regno] = RegState::unknown(cap);
        }
        Ok(())
    }

    /// The register-source `BPF_MOV` cases of `check_alu_op`.
    fn check_mov_reg(&mut self, insn: &Insn, dst: usize, src: usize, alu64: bool) -> VResult<()> {
        let src_reg = self.regs()[src];
        if alu64 {
            if insn.imm != 0 {
                // addr_space_cast (its off and imm were checked up front):
                // from as(1) the result is an arena pointer, to as(1) a
                // scalar user address
                self.mark_reg_unknown(dst);
                if insn.imm == 1 {
                    self.regs_mut()[dst].typ = PTR_TO_ARENA;
                }
                return Ok(());
            }
            if insn.off == 0 {
                self.assign_scalar_id_before_mov(src);
                let r = self.regs()[src];
                self.regs_mut()[dst] = r;
                return Ok(());
            }
            if self.is_pointer_value(src) {
                self.verbose(&format!("R{src} sign-extension part of pointer\n"));
                return errno(EACCES);
            }
            if src_reg.typ == SCALAR_VALUE {
                let bits = (insn.off as u32).clamp(1, 64);
                let no_sext = src_reg.s.umax() < (1u64 << (bits - 1));
                if no_sext {
                    self.assign_scalar_id_before_mov(src);
                }
                let mut r = self.regs()[src];
                if !no_sext {
                    r.clear_scalar_id();
                }
                r.s = scalar_mov(&r.s, true, insn.off);
                self.regs_mut()[dst] = r;
            } else {
                self.mark_reg_unknown(dst);
            }
            return Ok(());
        }
        if self.is_pointer_value(src) {
            self.verbose(&format!("R{src} partial copy of pointer\n"));
            return errno(EACCES);
        }
        if src_reg.typ == SCALAR_VALUE {
            let mut r;
            if insn.off == 0 {
                let is_u32 = reg_width(&src_reg) <= 32;
                if is_u32 {
                    self.assign_scalar_id_before_mov(src);
                }
                r = self.regs()[src];
                if !is_u32 {
                    r.clear_scalar_id();
                }
            } else {
                let bits = (insn.off as u32).clamp(1, 64);
                let no_sext = src_reg.s.umax() < (1u64 << (bits - 1));
                if no_sext {
                    self.assign_scalar_id_before_mov(src);
                }
                r = self.regs()[src];
                if !no_sext {
                    r.clear_scalar_id();
                }
            }
            r.s = scalar_mov(&r.s, false, insn.off);
            self.regs_mut()[dst] = r;
        } else {
            self.mark_reg_unknown(dst);
            let mut r = self.regs()[dst];
            r.s = scalar_mov(&r.s, false, 0);
            self.regs_mut()[dst] = r;
        }
        Ok(())
    }

    /// `adjust_scalar_min_max_vals` on register `dst` of the current frame.
    fn adjust_scalar(&mut self, dst: usize, src: &Scalar, insn: &Insn) -> VResult<()> {
        if sanitize_needed(insn.opcode())
            && let Err(reason) = self.sanitize_val_alu(insn)
        {
            return self.sanitize_err(insn, reason);
        }
        // only the numbers change: work on a copy of them, the register's
        // other fields are updated in place
        let mut s = self.regs()[dst].s;
        let out = adjust_scalar_min_max_vals(&mut s, src, insn);
        if let Some(f) = out.fork {
            // maybe_fork_scalars: the pushed path re-runs this insn
            let mut pushed = self.regs()[dst];
            pushed.s = f.dst;
            if f.id_cleared {
                pushed.clear_scalar_id();
            }
            let idx = self.insn_idx;
            let i = self.push_stack(idx, idx, false)?;
            if let Some(e) = self.stack.get_mut(i) {
                e.st.cur_mut().regs[dst] = pushed;
            }
        }
        let cap = self.bpf_capable();
        let r = &mut self.regs_mut()[dst];
        if out.marked_unknown {
            *r = RegState::unknown(cap);
        } else {
            r.s = s;
            if out.id_cleared {
                r.clear_scalar_id();
            }
        }
        Ok(())
    }

    /// `adjust_reg_min_max_vals`.
    fn adjust_reg_min_max_vals(&mut self, insn: &Insn) -> VResult<()> {
        let dst = insn.dst as usize;
        let src = insn.src as usize;
        let opcode = insn.opcode();
        let alu32 = insn.class() != BPF_ALU64;
        let src_x = insn.is_src_x();
        // decide on the types first: the common scalar-on-scalar case then
        // needs no copy of either register
        let dst_typ = self.regs()[dst].typ;
        let src_typ = if src_x { self.regs()[src].typ } else { SCALAR_VALUE };
        let idx = self.insn_idx;
        if dst_typ == PTR_TO_ARENA || src_typ == PTR_TO_ARENA {
            // any arithmetic goes on arena pointers; a 64-bit one is made
            // 32-bit by the fixups, so the insn must not also serve scalars
            if dst_typ != PTR_TO_ARENA {
                let r = self.regs()[src];
                self.regs_mut()[dst] = r;
            }
            if !alu32 {
                if self.aux.get(idx).is_some_and(|a| a.prevent_zext) {
                    self.verbose("same insn cannot be used with and without arena pointer\n");
                    return errno(EINVAL);
                }
                if let Some(a) = self.aux.get_mut(idx) {
                    a.needs_zext = true;
                }
            }
            return Ok(());
        }
        if self.input.has_arena && !alu32 {
            if self.aux.get(idx).is_some_and(|a| a.needs_zext) {
                self.verbose("same insn cannot be used with and without arena pointer\n");
                return errno(EINVAL);
            }
            if let Some(a) = self.aux.get_mut(idx) {
                a.prevent_zext = true;
            }
        }
        let ptr_dst = dst_typ != SCALAR_VALUE;
        if ptr_dst || src_typ != SCALAR_VALUE {
            return self.adjust_reg_min_max_vals_ptr(insn, ptr_dst);
        }
        if src_x && self.regs()[dst].precise {
            self.mark_chain_precision(src)?;
        }
        let dst_umax = self.regs()[dst].s.umax();
        let src_s = if src_x { self.regs()[src].s } else { Scalar::known(insn.imm as i64 as u64) };
        self.adjust_scalar(dst, &src_s, insn)?;
        // linked scalars: remember `rX = rY + const`
        let cap = self.bpf_capable();
        let r = &mut self.regs_mut()[dst];
        let src_const = src_s.is_reg_const(alu32);
        let same = src_x && src == dst;
        if cap && (opcode == BPF_ADD || opcode == BPF_SUB) && r.id != 0 && src_const && !same {
            let val = src_s.reg_const_value(alu32);
            let mut clear = false;
            if !alu32 && ((val as i64) < i32::MIN as i64 || (val as i64) > i32::MAX as i64) {
                clear = true;
            }
            if alu32 && dst_umax > u32::MAX as u64 {
                clear = true;
            }
            let mut off = val as i32;
            if !clear && opcode == BPF_SUB {
                if off == i32::MIN {
                    clear = true;
                } else {
                    off = -off;
                }
            }
            if clear || r.id & BPF_ADD_CONST != 0 {
                r.clear_scalar_id();
            } else {
                r.id |= if alu32 { BPF_ADD_CONST32 } else { BPF_ADD_CONST64 };
                r.delta = off;
            }
        } else {
            r.clear_scalar_id();
        }
        Ok(())
    }

    /// The cases of `adjust_reg_min_max_vals` with a pointer operand (not
    /// an arena pointer).
    fn adjust_reg_min_max_vals_ptr(&mut self, insn: &Insn, ptr_dst: bool) -> VResult<()> {
        let dst = insn.dst as usize;
        let src = insn.src as usize;
        let opcode = insn.opcode();
        let dst_reg = self.regs()[dst];
        if !insn.is_src_x() {
            let src_reg = RegState::known(insn.imm as i64 as u64);
            return self.adjust_ptr_min_max_vals(insn, dst, &dst_reg, &src_reg);
        }
        let src_reg = self.regs()[src];
        if src_reg.typ != SCALAR_VALUE {
            if ptr_dst {
                if opcode == BPF_SUB && self.allow_ptr_leaks() {
                    self.mark_reg_unknown(dst);
                    return Ok(());
                }
                self.verbose(&format!("R{dst} pointer {} pointer prohibited\n", alu_string(opcode)));
                return errno(EACCES);
            }
            self.mark_chain_precision(dst)?;
            let off_reg = self.regs()[dst];
            return self.adjust_ptr_min_max_vals(insn, src, &src_reg, &off_reg);
        }
        self.mark_chain_precision(src)?;
        self.adjust_ptr_min_max_vals(insn, dst, &dst_reg, &src_reg)
    }

    /// `check_reg_sane_offset_scalar`.
    fn check_reg_sane_offset_scalar(&mut self, reg: &RegState, t: RegType) -> bool {
        let known = tnum_is_const(reg.s.var_off);
        let val = reg.s.var_off.value as i64;
        let smin = reg.s.smin();
        if known && (val >= BPF_MAX_VAR_OFF || val <= -BPF_MAX_VAR_OFF) {
            self.verbose(&format!("math between {} pointer and {val} is not allowed\n", reg_type_str(t)));
            return false;
        }
        if smin == i64::MIN {
            self.verbose(&format!("math between {} pointer and register with unbounded min value is not allowed\n", reg_type_str(t)));
            return false;
        }
        if smin >= BPF_MAX_VAR_OFF || smin <= -BPF_MAX_VAR_OFF {
            self.verbose(&format!("value {smin} makes {} pointer be out of bounds\n", reg_type_str(t)));
            return false;
        }
        true
    }

    /// `check_reg_sane_offset_ptr`.
    fn check_reg_sane_offset_ptr(&mut self, reg: &RegState, t: RegType) -> bool {
        let known = tnum_is_const(reg.s.var_off);
        let val = reg.s.var_off.value as i64;
        let smin = reg.s.smin();
        if known && (val >= BPF_MAX_VAR_OFF || val <= -BPF_MAX_VAR_OFF) {
            self.verbose(&format!("{} pointer offset {val} is not allowed\n", reg_type_str(t)));
            return false;
        }
        if smin >= BPF_MAX_VAR_OFF || smin <= -BPF_MAX_VAR_OFF {
            self.verbose(&format!("{} pointer offset {smin} is not allowed\n", reg_type_str(t)));
            return false;
        }
        true
    }

    /// `adjust_ptr_min_max_vals`: `ptr += scalar`, `ptr -= scalar`,
    /// `scalar += ptr`.
    fn adjust_ptr_min_max_vals(&mut self, insn: &Insn, ptr_regno: usize, ptr_reg: &RegState, off_reg: &RegState) -> VResult<()> {
        let dst = insn.dst as usize;
        let opcode = insn.opcode();
        let known = tnum_is_const(off_reg.s.var_off);
        let (smin, smax, umin, umax) = (off_reg.s.smin(), off_reg.s.smax(), off_reg.s.umin(), off_reg.s.umax());
        if (known && (smin != smax || umin != umax)) || smin > smax || umin > umax {
            self.mark_reg_unknown(dst);
            return Ok(());
        }
        let plain = bpf_diag_reg_type_plain(ptr_reg.typ);
        if insn.class() != BPF_ALU64 {
            if opcode == BPF_SUB && self.allow_ptr_leaks() {
                self.mark_reg_unknown(dst);
                return Ok(());
            }
            self.verbose(&format!("R{dst} 32-bit pointer arithmetic prohibited\n"));
            self.bpf_diag_register_type(
                ptr_regno,
                "32-bit pointer arithmetic",
                &format!("R{ptr_regno} holds {plain}. 32-bit ALU operations on pointers discard pointer tracking, so the verifier cannot keep the result as a safe pointer."),
                "Use a 64-bit ALU instruction with an allowed, bounded scalar offset.",
            );
            return errno(EACCES);
        }
        if type_may_be_null(ptr_reg.typ) {
            let ts = reg_type_str(ptr_reg.typ);
            self.verbose(&format!("R{dst} pointer arithmetic on {ts} prohibited, null-check it first\n"));
            self.bpf_diag_register_type(
                ptr_regno,
                "pointer arithmetic before NULL check",
                &format!("R{ptr_regno} may be NULL ({ts}). Pointer arithmetic is allowed only after the program proves the pointer is non-NULL on this path."),
                "Make sure that a NULL check precedes any arithmetic performed on the pointer.",
            );
            return errno(EACCES);
        }
        let ok = match base_type(ptr_reg.typ) {
            PTR_TO_CTX | PTR_TO_MAP_VALUE | PTR_TO_MAP_KEY | PTR_TO_STACK | PTR_TO_PACKET_META | PTR_TO_PACKET | PTR_TO_TP_BUFFER | PTR_TO_BTF_ID
            | PTR_TO_MEM | PTR_TO_BUF | PTR_TO_FUNC | CONST_PTR_TO_DYNPTR => true,
            PTR_TO_FLOW_KEYS if known => true,
            PTR_TO_FLOW_KEYS | CONST_PTR_TO_MAP => known && smin == 0 && opcode == BPF_ADD,
            _ => false,
        };
        if !ok {
            self.verbose(&format!("R{dst} pointer arithmetic on {} prohibited\n", reg_type_str(ptr_reg.typ)));
            self.bpf_diag_register_type(
                ptr_regno,
                "pointer arithmetic is not allowed",
                &format!("R{ptr_regno} holds {plain}. This pointer kind does not allow offset arithmetic."),
                "Do not change this pointer's offset; use it only in operations accepted for its kind.",
            );
            return errno(EACCES);
        }
        let mut d = *ptr_reg;
        if base_type(ptr_reg.typ) == PTR_TO_MEM && ptr_reg.typ & PTR_UNTRUSTED != 0 {
            self.regs_mut()[dst] = d;
            return Ok(());
        }
        if !self.check_reg_sane_offset_scalar(off_reg, ptr_reg.typ) {
            self.bpf_diag_register_type(
                ptr_regno,
                "pointer offset is not safe",
                &format!("The scalar offset used with R{ptr_regno} is unbounded or outside the verifier's safe pointer-offset range [-{BPF_MAX_VAR_OFF}, {BPF_MAX_VAR_OFF}]."),
                "Clamp or bounds-check the scalar offset before applying it to the pointer.",
            );
            return errno(EINVAL);
        }
        if !self.check_reg_sane_offset_ptr(ptr_reg, ptr_reg.typ) {
            self.bpf_diag_register_type(
                ptr_regno,
                "pointer offset is not safe",
                &format!("R{ptr_regno} already has an offset outside the verifier's safe range [-{BPF_MAX_VAR_OFF}, {BPF_MAX_VAR_OFF}] for {plain}."),
                "Keep the base pointer within the verifier's allowed offset range before applying more arithmetic.",
            );
            return errno(EINVAL);
        }
        let mut info = SanitizeInfo::default();
        if sanitize_needed(opcode)
            && let Err(reason) = self.sanitize_ptr_alu(insn, ptr_reg, off_reg, dst == ptr_regno, &mut info, false)
        {
            return self.sanitize_err(insn, reason);
        }
        d.s.mark_reg32_unbounded();
        match opcode {
            BPF_ADD => {
                d.s.r64 = ptr_reg.s.r64.add(off_reg.s.r64);
                d.s.var_off = tnum_add(ptr_reg.s.var_off, off_reg.s.var_off);
                d.aux = ptr_reg.aux;
                if ptr_reg.is_pkt_pointer() {
                    if !known {
                        self.id_gen += 1;
                        d.id = self.id_gen;
                    }
                    if !known || d.aux < 0 {
                        d.aux = 0;
                    }
                }
            }
            BPF_SUB => {
                if dst != ptr_regno {
                    self.verbose(&format!("R{dst} tried to subtract pointer from scalar\n"));
                    self.bpf_diag_register_type(
                        ptr_regno,
                        "pointer subtracted from scalar",
                        &format!("This operation subtracts pointer register R{ptr_regno} from scalar register R{dst}. The verifier only tracks pointer-minus-scalar arithmetic for allowed pointer types."),
                        "Keep the pointer as the base; only add or subtract bounded scalars when permitted.",
                    );
                    return errno(EACCES);
                }
                if ptr_reg.typ == PTR_TO_STACK {
                    self.verbose(&format!("R{dst} subtraction from stack pointer prohibited\n"));
                    self.bpf_diag_register_type(
                        ptr_regno,
                        "subtraction from stack pointer",
                        &format!("R{ptr_regno} is a stack pointer. The verifier does not allow BPF_SUB to move stack pointers."),
                        "Use addition from R10 to form stack addresses within the tracked stack frame.",
                    );
                    return errno(EACCES);
                }
                d.s.r64 = ptr_reg.s.r64.add(off_reg.s.r64.negate());
                d.s.var_off = tnum_sub(ptr_reg.s.var_off, off_reg.s.var_off);
                d.aux = ptr_reg.aux;
                if ptr_reg.is_pkt_pointer() {
                    if !known {
                        self.id_gen += 1;
                        d.id = self.id_gen;
                    }
                    if (!known && smin < 0) || d.aux < 0 {
                        d.aux = 0;
                    }
                }
            }
            BPF_AND | BPF_OR | BPF_XOR => {
                let o = alu_string(opcode);
                self.verbose(&format!("R{dst} bitwise operator {o} on pointer prohibited\n"));
                self.bpf_diag_register_type(
                    ptr_regno,
                    "bitwise operation on pointer",
                    &format!("R{ptr_regno} holds {plain}. Bitwise operator {o} would destroy the pointer value the verifier is tracking."),
                    "Do bitwise operations on scalar values, not on pointer-valued registers.",
                );
                return errno(EACCES);
            }
            _ => {
                let o = alu_string(opcode);
                self.verbose(&format!("R{dst} pointer arithmetic with {o} operator prohibited\n"));
                self.bpf_diag_register_type(
                    ptr_regno,
                    "invalid pointer arithmetic operator",
                    &format!("R{ptr_regno} holds {plain}. Operator {o} is not one of the limited pointer arithmetic operations the verifier can track."),
                    "Use only verifier-supported addition or subtraction with a bounded scalar offset, or perform this operation on a scalar value.",
                );
                return errno(EACCES);
            }
        }
        if !self.check_reg_sane_offset_ptr(&d, ptr_reg.typ) {
            self.bpf_diag_register_type(
                ptr_regno,
                "pointer offset is not safe",
                &format!(
                    "After this arithmetic, R{dst} would be outside the verifier's safe offset range [-{BPF_MAX_VAR_OFF}, {BPF_MAX_VAR_OFF}] for {plain}."
                ),
                "Tighten the scalar bounds before the arithmetic so the resulting pointer remains within the allowed range.",
            );
            return errno(EINVAL);
        }
        if d.is_pkt_pointer() && (known || d.aux > 0) {
            update_reg32_bounds(&mut d.s);
        } else {
            reg_bounds_sync(&mut d.s);
        }
        self.regs_mut()[dst] = d;
        let bounds = self.sanitize_check_bounds(dst, &d);
        if bounds == Err(EACCES) {
            return errno(EACCES);
        }
        if sanitize_needed(opcode) {
            let r = self.sanitize_ptr_alu(insn, &d, off_reg, true, &mut info, true);
            if !self.can_skip_alu_sanitation(insn) && !self.cur.speculative && bounds.is_err() && r.is_ok() {
                self.verbose("verifier bug: Pointer type unsupported by sanitize_check_bounds() not rejected by retrieve_ptr_limit() as required\n");
                return errno(EFAULT);
            }
            if let Err(reason) = r {
                return self.sanitize_err(insn, reason);
            }
        }
        Ok(())
    }

    /// `sanitize_check_bounds`: an unprivileged loader's pointer must stay
    /// inside its object after arithmetic, so that accesses can be masked.
    /// `Err(EOPNOTSUPP)` for pointer types without such a check.
    fn sanitize_check_bounds(&mut self, dst: usize, d: &RegState) -> Result<(), i32> {
        if self.input.privs.bypass_spec_v1 {
            return Ok(());
        }
        match d.typ {
            PTR_TO_STACK => {
                let off = d.s.var_off.value as i64 as i32 as i64;
                if !tnum_is_const(d.s.var_off) {
                    let s = format!("R{dst} variable stack access prohibited for !root, var_off={} off={off}\n", tnum_strn(d.s.var_off));
                    self.verbose(&s);
                    return Err(EACCES);
                }
                if !(-MAX_BPF_STACK..0).contains(&off) {
                    self.verbose(&format!("R{dst} stack pointer arithmetic goes out of range, prohibited for !root; off={off}\n"));
                    return Err(EACCES);
                }
                Ok(())
            }
            PTR_TO_MAP_VALUE => {
                if self.check_map_access(dst, d, 0, 1).is_err() {
                    self.verbose(&format!("R{dst} pointer arithmetic of map value goes out of range, prohibited for !root\n"));
                    return Err(EACCES);
                }
                Ok(())
            }
            _ => Err(EOPNOTSUPP),
        }
    }

    /// `can_skip_alu_sanitation`.
    fn can_skip_alu_sanitation(&self, insn: &Insn) -> bool {
        self.input.privs.bypass_spec_v1 || !insn.is_src_x() || self.aux.get(self.insn_idx).is_some_and(|a| a.nospec)
    }

    /// `update_alu_sanitation_state`: every path through an insn must need
    /// the same masking.
    fn update_alu_sanitation_state(aux: &mut PassAux, alu_state: u8, alu_limit: u32) -> Result<(), Reason> {
        if aux.alu_state != 0 && (aux.alu_state != alu_state || aux.alu_limit != alu_limit) {
            return Err(Reason::Paths);
        }
        aux.alu_state = alu_state;
        aux.alu_limit = alu_limit;
        Ok(())
    }

    /// `sanitize_val_alu`: scalar ADD/SUB through a register.
    fn sanitize_val_alu(&mut self, insn: &Insn) -> Result<(), Reason> {
        if self.can_skip_alu_sanitation(insn) {
            return Ok(());
        }
        let idx = self.insn_idx;
        match self.aux.get_mut(idx) {
            Some(a) => Self::update_alu_sanitation_state(a, BPF_ALU_NON_POINTER, 0),
            None => Ok(()),
        }
    }

    /// `sanitize_ptr_alu`: before the operation (`commit_window` false)
    /// the masking direction and window are worked out and the pointer as
    /// masking would leave it is pushed as a speculative path; after it,
    /// the window is narrowed to the observed move and recorded.
    fn sanitize_ptr_alu(
        &mut self,
        insn: &Insn,
        ptr_reg: &RegState,
        off_reg: &RegState,
        ptr_is_dst: bool,
        info: &mut SanitizeInfo,
        commit_window: bool,
    ) -> Result<(), Reason> {
        if self.can_skip_alu_sanitation(insn) {
            return Ok(());
        }
        let off_is_imm = tnum_is_const(off_reg.s.var_off);
        if !self.cur.speculative {
            let off_is_neg = off_reg.s.smin() < 0;
            if !commit_window {
                if !off_is_imm && (off_reg.s.smin() < 0) != (off_reg.s.smax() < 0) {
                    return Err(Reason::Bounds);
                }
                let opcode = insn.opcode();
                info.mask_to_left = (opcode == BPF_ADD && off_is_neg) || (opcode == BPF_SUB && !off_is_neg);
            }
            let limit = self.retrieve_ptr_limit(ptr_reg, info.mask_to_left)?;
            let (alu_state, alu_limit) = if commit_window {
                (info.aux.alu_state, (info.aux.alu_limit.wrapping_sub(limit) as i32).unsigned_abs())
            } else {
                let mut st = if off_is_neg { BPF_ALU_NEG_VALUE } else { 0 };
                st |= if off_is_imm { BPF_ALU_IMMEDIATE } else { 0 };
                st |= if ptr_is_dst { BPF_ALU_SANITIZE_SRC } else { BPF_ALU_SANITIZE_DST };
                if !off_is_imm {
                    self.explore_alu_limits = true;
                }
                (st, limit)
            };
            if commit_window {
                let idx = self.insn_idx;
                if let Some(a) = self.aux.get_mut(idx) {
                    Self::update_alu_sanitation_state(a, alu_state, alu_limit)?;
                }
            } else {
                Self::update_alu_sanitation_state(&mut info.aux, alu_state, alu_limit)?;
            }
        }
        // do_sim: a known offset is rewritten to an immediate, nothing to
        // simulate
        if commit_window || off_is_imm {
            return Ok(());
        }
        let idx = self.insn_idx;
        let dst = insn.dst as usize;
        let i = self.sanitize_speculative_path(None, idx + 1, idx).map_err(|_| Reason::Stack)?;
        if let Some(e) = self.stack.get_mut(i) {
            e.st.cur_mut().regs[dst] = *ptr_reg;
        }
        Ok(())
    }

    /// `retrieve_ptr_limit`: how far the pointer may move in the masked
    /// direction.
    fn retrieve_ptr_limit(&self, ptr: &RegState, mask_to_left: bool) -> Result<u32, Reason> {
        let (max, limit) = match ptr.typ {
            PTR_TO_STACK => (MAX_BPF_STACK as u32 + mask_to_left as u32, (ptr.s.var_off.value as u32).wrapping_neg()),
            PTR_TO_MAP_VALUE => {
                let vs = usize::try_from(ptr.aux).ok().and_then(|m| self.input.maps.get(m)).map_or(0, |m| m.value_size);
                (vs, if mask_to_left { ptr.s.smin() as u32 } else { ptr.s.umax() as u32 })
            }
            _ => return Err(Reason::Type),
        };
        if limit >= max {
            return Err(Reason::Limit);
        }
        Ok(limit)
    }

    /// `sanitize_err`.
    fn sanitize_err(&mut self, insn: &Insn, reason: Reason) -> VResult<()> {
        const ERR: &str = "pointer arithmetic with it prohibited for !root";
        let op = if insn.opcode() == BPF_ADD { "add" } else { "sub" };
        let (dst, src) = (insn.dst as usize, insn.src as usize);
        let src_scalar = self.regs().get(src).is_some_and(|r| r.typ == SCALAR_VALUE);
        let s = match reason {
            Reason::Bounds => format!("R{} has unknown scalar with mixed signed bounds, {ERR}\n", if src_scalar { src } else { dst }),
            Reason::Type => format!("R{} has pointer with unsupported alu operation, {ERR}\n", if src_scalar { dst } else { src }),
            Reason::Paths => format!("R{dst} tried to {op} from different maps, paths or scalars, {ERR}\n"),
            Reason::Limit => format!("R{dst} tried to {op} beyond pointer bounds, {ERR}\n"),
            Reason::Stack => {
                self.verbose(&format!("R{dst} could not be pushed for speculative verification, {ERR}\n"));
                return errno(ENOMEM);
            }
        };
        self.verbose(&s);
        errno(EACCES)
    }
}

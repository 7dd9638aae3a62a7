//! ALU instructions on registers: `check_alu_op`, `adjust_reg_min_max_vals`
//! and `adjust_ptr_min_max_vals` (pointer arithmetic, with the rules for
//! unprivileged loaders: `sanitize_check_bounds`). The numbers themselves
//! are [`super::scalar`]'s.
//!
//! Not modelled yet: the Spectre v1 sanitation of `sanitize_ptr_alu` /
//! `sanitize_val_alu` (alu limits and the speculative paths it pushes).

use bpf_isa::Insn;
use bpf_isa::insn::op::*;

use super::do_check::*;
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
                if insn.off == BPF_ADDR_SPACE_CAST {
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
        self.reg_bounds_sanity_check(dst, "alu")
    }

    /// `reg_bounds_sanity_check`: with `BPF_F_TEST_REG_INVARIANTS` a
    /// violated invariant is a verifier bug.
    pub(crate) fn reg_bounds_sanity_check(&mut self, regno: usize, ctx: &str) -> VResult<()> {
        let r = self.regs()[regno];
        if r.typ != SCALAR_VALUE {
            return Ok(());
        }
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
                return Err(DoCheckError::Unsupported("addr_space_cast is not modelled yet".into()));
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
        let mut r = self.regs()[dst];
        let out = adjust_scalar_min_max_vals(&mut r.s, src, insn);
        if out.marked_unknown {
            r = self.unknown_reg();
        } else if out.id_cleared {
            r.clear_scalar_id();
        }
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
        self.regs_mut()[dst] = r;
        Ok(())
    }

    /// `adjust_reg_min_max_vals`.
    fn adjust_reg_min_max_vals(&mut self, insn: &Insn) -> VResult<()> {
        let dst = insn.dst as usize;
        let src = insn.src as usize;
        let opcode = insn.opcode();
        let alu32 = insn.class() != BPF_ALU64;
        let dst_reg = self.regs()[dst];
        let src_reg = if insn.is_src_x() {
            self.regs()[src]
        } else {
            let mut k = RegState::known(insn.imm as i64 as u64);
            k.typ = SCALAR_VALUE;
            k
        };
        if dst_reg.typ == PTR_TO_ARENA || (insn.is_src_x() && src_reg.typ == PTR_TO_ARENA) {
            return Err(DoCheckError::Unsupported("arena pointers are not modelled yet".into()));
        }
        let ptr_dst = dst_reg.typ != SCALAR_VALUE;
        if insn.is_src_x() {
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
            } else if ptr_dst {
                self.mark_chain_precision(src)?;
                return self.adjust_ptr_min_max_vals(insn, dst, &dst_reg, &src_reg);
            } else if dst_reg.precise {
                self.mark_chain_precision(src)?;
            }
        } else if ptr_dst {
            return self.adjust_ptr_min_max_vals(insn, dst, &dst_reg, &src_reg);
        }
        let dst_umax = dst_reg.s.umax();
        let src_s = if insn.is_src_x() { self.regs()[src].s } else { src_reg.s };
        self.adjust_scalar(dst, &src_s, insn)?;
        // linked scalars: remember `rX = rY + const`
        let mut r = self.regs()[dst];
        let src_const = src_reg.typ == SCALAR_VALUE && src_reg.s.is_reg_const(alu32);
        let same = insn.is_src_x() && src == dst;
        if self.bpf_capable() && (opcode == BPF_ADD || opcode == BPF_SUB) && r.id != 0 && src_const && !same {
            let val = src_reg.s.reg_const_value(alu32);
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
        self.regs_mut()[dst] = r;
        Ok(())
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
        let _ = ptr_regno;
        if (known && (smin != smax || umin != umax)) || smin > smax || umin > umax {
            self.mark_reg_unknown(dst);
            return Ok(());
        }
        if insn.class() != BPF_ALU64 {
            if opcode == BPF_SUB && self.allow_ptr_leaks() {
                self.mark_reg_unknown(dst);
                return Ok(());
            }
            self.verbose(&format!("R{dst} 32-bit pointer arithmetic prohibited\n"));
            return errno(EACCES);
        }
        if type_may_be_null(ptr_reg.typ) {
            self.verbose(&format!("R{dst} pointer arithmetic on {} prohibited, null-check it first\n", reg_type_str(ptr_reg.typ)));
            return errno(EACCES);
        }
        let ok = match base_type(ptr_reg.typ) {
            PTR_TO_CTX | PTR_TO_MAP_VALUE | PTR_TO_MAP_KEY | PTR_TO_STACK | PTR_TO_PACKET_META | PTR_TO_PACKET | PTR_TO_TP_BUFFER
            | PTR_TO_BTF_ID | PTR_TO_MEM | PTR_TO_BUF | PTR_TO_FUNC | CONST_PTR_TO_DYNPTR => true,
            PTR_TO_FLOW_KEYS if known => true,
            PTR_TO_FLOW_KEYS | CONST_PTR_TO_MAP => known && smin == 0 && opcode == BPF_ADD,
            _ => false,
        };
        if !ok {
            self.verbose(&format!("R{dst} pointer arithmetic on {} prohibited\n", reg_type_str(ptr_reg.typ)));
            return errno(EACCES);
        }
        let mut d = *ptr_reg;
        if base_type(ptr_reg.typ) == PTR_TO_MEM && ptr_reg.typ & PTR_UNTRUSTED != 0 {
            self.regs_mut()[dst] = d;
            return Ok(());
        }
        if !self.check_reg_sane_offset_scalar(off_reg, ptr_reg.typ) {
            return errno(EINVAL);
        }
        if !self.check_reg_sane_offset_ptr(ptr_reg, ptr_reg.typ) {
            return errno(EINVAL);
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
                    return errno(EACCES);
                }
                if ptr_reg.typ == PTR_TO_STACK {
                    self.verbose(&format!("R{dst} subtraction from stack pointer prohibited\n"));
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
                self.verbose(&format!("R{dst} bitwise operator {} on pointer prohibited\n", alu_string(opcode)));
                return errno(EACCES);
            }
            _ => {
                self.verbose(&format!("R{dst} pointer arithmetic with {} operator prohibited\n", alu_string(opcode)));
                return errno(EACCES);
            }
        }
        if !self.check_reg_sane_offset_ptr(&d, ptr_reg.typ) {
            return errno(EINVAL);
        }
        if d.is_pkt_pointer() && (known || d.aux > 0) {
            update_reg32_bounds(&mut d.s);
        } else {
            reg_bounds_sync(&mut d.s);
        }
        self.regs_mut()[dst] = d;
        // sanitize_check_bounds
        if !self.input.privs.bypass_spec_v1 {
            match d.typ {
                PTR_TO_STACK => {
                    if !tnum_is_const(d.s.var_off) {
                        let s = format!("R{dst} variable stack access prohibited for !root, var_off={} off={}\n", tnum_strn(d.s.var_off), d.s.var_off.value as i64 as i32);
                        self.verbose(&s);
                        return errno(EACCES);
                    }
                    let off = d.s.var_off.value as i64 as i32 as i64;
                    if off >= 0 || off < -MAX_BPF_STACK {
                        self.verbose(&format!("R{dst} stack pointer arithmetic goes out of range, prohibited for !root; off={off}\n"));
                        return errno(EACCES);
                    }
                }
                PTR_TO_MAP_VALUE => {
                    if !self.map_value_in_range(&d, 0, 1) {
                        self.verbose(&format!("R{dst} pointer arithmetic of map value goes out of range, prohibited for !root\n"));
                        return errno(EACCES);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

//! Stack accesses: `check_stack_access_within_bounds`, `check_stack_write`
//! (fixed and variable offset: spills, STACK_MISC/STACK_ZERO),
//! `check_stack_read` (fills, partial fills, `mark_reg_stack_read`).
//! Only the current frame's stack is reachable until calls are modelled.

use super::diag::{ModReason, bpf_diag_memory};
use super::do_check::*;
use super::reg::*;
use super::scalar::print::tnum_strn;
use super::state::*;
use super::tnum::*;
use crate::target::Arch;

/// `mark_stack_slot_misc`.
fn mark_stack_slot_misc(t: &mut u8) {
    if matches!(*t, STACK_ZERO | STACK_INVALID | STACK_POISON) {
        return;
    }
    *t = STACK_MISC;
}

/// `scrub_spilled_slot`.
fn scrub_spilled_slot(t: &mut u8) {
    if *t != STACK_INVALID && *t != STACK_POISON {
        *t = STACK_MISC;
    }
}

/// `bpf_stack_narrow_access_ok`: a fill narrower than the spill reads the
/// spilled value's low bytes, which start the slot on a little-endian
/// kernel and end it on a big-endian one (s390x).
fn stack_narrow_access_ok(off: i64, fill_size: i64, spill_size: i64, big_endian: bool) -> bool {
    let off = if big_endian { off - (spill_size - fill_size) } else { off };
    off % BPF_REG_SIZE as i64 == 0
}

impl Env<'_, '_> {
    fn stack_frame_of(&self, reg: &RegState) -> usize {
        reg.frameno().min(self.cur.curframe())
    }

    /// `grow_stack_state` and the subprogram's stack depth.
    fn grow_stack_state(&mut self, frame: usize, size: i64) {
        let size = (size.max(0) as usize).div_ceil(BPF_REG_SIZE) * BPF_REG_SIZE;
        let Some(f) = self.cur.frame.get_mut(frame) else { return };
        if size.div_ceil(BPF_REG_SIZE) <= f.stack.len() {
            return;
        }
        f.grow_stack(size);
        if let Some(sp) = self.subprogs.get_mut(f.subprogno)
            && sp.stack_depth < size as u32
        {
            sp.stack_depth = size as u32;
        }
    }

    /// `check_stack_access_within_bounds`.
    pub(crate) fn check_stack_access_within_bounds(&mut self, regno: usize, reg: &RegState, off: i64, size: i64, write: bool) -> VResult<()> {
        let frame = self.stack_frame_of(reg);
        let extra = if write { " write to" } else { " read from" };
        let (min_off, max_off) = if tnum_is_const(reg.s.var_off) {
            let m = reg.s.var_off.value as i64 + off;
            (m, m + size)
        } else {
            if reg.s.smax() >= BPF_MAX_VAR_OFF || reg.s.smin() <= -BPF_MAX_VAR_OFF {
                self.verbose(&format!("invalid unbounded variable-offset{extra} stack R{regno}\n"));
                return errno(EACCES);
            }
            (reg.s.smin() + off, reg.s.smax() + off + size)
        };
        let min_valid = if write || self.input.privs.allow_uninit_stack { -MAX_BPF_STACK } else { -(self.cur.frame[frame].allocated_stack() as i64) };
        let bad = min_off < min_valid || min_off > -1 || max_off > 0 || size < 0;
        if bad {
            let s = if tnum_is_const(reg.s.var_off) {
                format!("invalid{extra} stack R{regno} off={min_off} size={size}\n")
            } else {
                format!("invalid variable-offset{extra} stack R{regno} var_off={} off={off} size={size}\n", tnum_strn(reg.s.var_off))
            };
            self.verbose(&s);
            return errno(if max_off > 0 && min_off >= min_valid && min_off <= -1 { EINVAL } else { EACCES });
        }
        self.grow_stack_state(frame, -min_off);
        Ok(())
    }

    /// `check_stack_write`.
    pub(crate) fn check_stack_write(&mut self, reg: &RegState, off: i64, size: i64, value_regno: Option<usize>) -> VResult<()> {
        let frame = self.stack_frame_of(reg);
        if tnum_is_const(reg.s.var_off) {
            self.check_stack_write_fixed_off(frame, off + reg.s.var_off.value as i64, size, value_regno)
        } else {
            self.check_stack_write_var_off(frame, reg, off, size, value_regno)
        }
    }

    /// `check_stack_write_fixed_off`.
    fn check_stack_write_fixed_off(&mut self, frame: usize, off: i64, size: i64, value_regno: Option<usize>) -> VResult<()> {
        let slot = (-off - 1) as usize;
        let spi = slot / BPF_REG_SIZE;
        let insn = self.insn(self.insn_idx);
        let is_st = insn.class() == bpf_isa::insn::op::BPF_ST;
        let Some(cur_slot) = self.cur.frame[frame].stack.get(spi).copied() else { return errno(EFAULT) };
        if !self.allow_ptr_leaks() && cur_slot.is_spilled_reg() && !cur_slot.is_spilled_scalar_reg() && size != BPF_REG_SIZE as i64 {
            self.verbose("attempt to corrupt spilled pointer on stack\n");
            let reason = format!(
                "This store writes {size} bytes at stack offset {off} into a stack slot that currently holds a spilled pointer. Partial writes to spilled pointers are rejected because they can corrupt pointer metadata and leak kernel pointers."
            );
            let idx = self.insn_idx;
            bpf_diag_memory(
                self,
                idx,
                "stack spill corruption",
                &reason,
                "Write the full 8-byte spilled pointer slot, or use a separate stack slot for scalar data before overwriting only part of it.",
            );
            return errno(EACCES);
        }
        let reg = value_regno.map(|v| self.regs()[v]);
        if !self.input.privs.bypass_spec_v4 {
            // Spectre v4: a store over anything but plain data, or of a
            // pointer, gets a barrier after it
            let over_data = (0..size.max(0) as usize).all(|i| matches!(cur_slot.slot_type[(slot - i) % BPF_REG_SIZE], STACK_MISC | STACK_ZERO));
            if reg.is_some_and(|r| r.is_pointer()) || !over_data {
                let idx = self.insn_idx;
                self.aux[idx].nospec_result = true;
            }
        }
        self.destroy_if_dynptr_stack_slot(frame, spi)?;
        self.check_fastcall_stack_contract(frame, off);
        self.mark_stack_slot_scratched(spi);
        let cap = self.bpf_capable();
        let aligned = off % BPF_REG_SIZE as i64 == 0;
        if let Some(mut r) = reg
            && aligned
            && r.typ == SCALAR_VALUE
            && cap
        {
            let fits = fls64(r.s.umax()) as i64 <= 8 * size;
            if fits {
                self.assign_scalar_id_to(&mut r);
                if let Some(v) = value_regno {
                    self.regs_mut()[v] = r;
                }
            }
            self.save_register_state(frame, spi, r, size, value_regno);
            if !fits {
                self.cur.frame[frame].stack[spi].spilled_ptr.clear_scalar_id();
            }
        } else if reg.is_none() && aligned && is_st && cap {
            let mut t = RegState::known(insn.imm as i64 as u64);
            t.typ = SCALAR_VALUE;
            self.save_register_state(frame, spi, t, size, None);
        } else if let Some(r) = reg
            && r.is_pointer()
        {
            if size != BPF_REG_SIZE as i64 {
                self.verbose_linfo(self.insn_idx, "; ");
                self.verbose("invalid size of register spill\n");
                return errno(EACCES);
            }
            if frame != self.cur.curframe() && r.typ == PTR_TO_STACK {
                self.verbose("cannot spill pointers to stack into stack frame of the caller\n");
                return errno(EINVAL);
            }
            self.save_register_state(frame, spi, r, size, value_regno);
        } else {
            let mut t = STACK_MISC;
            if self.cur.frame[frame].stack[spi].is_spilled_reg() {
                let target = self.diag_slot_target(frame, spi);
                self.diag_record_scrub(target, ModReason::Write);
            }
            {
                let st = &mut self.cur.frame[frame].stack[spi];
                st.spilled_ptr.typ = NOT_INIT;
                if st.is_special() {
                    for b in st.slot_type.iter_mut() {
                        scrub_spilled_slot(b);
                    }
                }
            }
            if reg.is_some_and(|r| r.is_null()) || (reg.is_none() && is_st && insn.imm == 0) {
                if let Some(v) = value_regno {
                    self.mark_chain_precision(v)?;
                }
                t = STACK_ZERO;
            }
            let st = &mut self.cur.frame[frame].stack[spi];
            for i in 0..size.max(0) as usize {
                st.slot_type[(slot - i) % BPF_REG_SIZE] = t;
            }
            // not a register spill: nothing for backtracking to follow
            return Ok(());
        }
        self.push_jmp_history(INSN_F_STACK_ACCESS, spi, frame, 0);
        Ok(())
    }

    /// `save_register_state`: `origin` is the register spilled.
    fn save_register_state(&mut self, frame: usize, spi: usize, r: RegState, size: i64, origin: Option<usize>) {
        let target = self.diag_slot_target(frame, spi);
        let cf = self.cur.curframe();
        let origin = origin.map(|o| self.diag_reg_target(cf, o));
        self.diag_mod_begin(target, origin, ModReason::Spill);
        let st = &mut self.cur.frame[frame].stack[spi];
        st.spilled_ptr = r;
        let size = size.clamp(0, 8) as usize;
        for i in (BPF_REG_SIZE - size)..BPF_REG_SIZE {
            st.slot_type[i] = STACK_SPILL;
        }
        for i in 0..BPF_REG_SIZE - size {
            mark_stack_slot_misc(&mut st.slot_type[i]);
        }
        self.diag_mod_end();
    }

    /// `check_stack_write_var_off`.
    fn check_stack_write_var_off(&mut self, frame: usize, ptr: &RegState, off: i64, size: i64, value_regno: Option<usize>) -> VResult<()> {
        let insn = self.insn(self.insn_idx);
        let is_st = insn.class() == bpf_isa::insn::op::BPF_ST;
        let min_off = ptr.s.smin() + off;
        let max_off = ptr.s.smax() + off + size;
        let value = value_regno.map(|v| self.regs()[v]);
        let writing_zero = value.is_some_and(|r| r.is_null()) || (value.is_none() && is_st && insn.imm == 0);
        let mut zero_used = false;
        for i in min_off..max_off {
            self.destroy_if_dynptr_stack_slot(frame, get_spi(i).max(0) as usize)?;
        }
        self.check_fastcall_stack_contract(frame, min_off);
        for i in min_off..max_off {
            let slot = (-i - 1) as usize;
            let spi = slot / BPF_REG_SIZE;
            self.mark_stack_slot_scratched(spi);
            let allow_leaks = self.allow_ptr_leaks();
            let allow_uninit = self.input.privs.allow_uninit_stack;
            let Some(st) = self.cur.frame[frame].stack.get_mut(spi) else { return errno(EFAULT) };
            let stype = st.slot_type[slot % BPF_REG_SIZE];
            if !allow_leaks && stype != STACK_MISC && stype != STACK_ZERO {
                let s = format!("spilled ptr in range of var-offset stack write; insn {}, ptr off: {i}", self.insn_idx);
                self.verbose(&s);
                return errno(EINVAL);
            }
            if writing_zero && stype == STACK_SPILL && st.is_spilled_scalar_reg() && st.spilled_ptr.is_null() {
                zero_used = true;
                continue;
            }
            st.spilled_ptr.typ = NOT_INIT;
            if st.is_special() {
                for b in st.slot_type.iter_mut() {
                    scrub_spilled_slot(b);
                }
            }
            let mut new_type = STACK_MISC;
            if writing_zero && stype == STACK_ZERO {
                new_type = STACK_ZERO;
                zero_used = true;
            }
            if (stype == STACK_INVALID || stype == STACK_POISON) && !allow_uninit {
                let s = format!("uninit stack in range of var-offset write prohibited for !root; insn {}, off: {i}", self.insn_idx);
                self.verbose(&s);
                return errno(EINVAL);
            }
            st.slot_type[slot % BPF_REG_SIZE] = new_type;
        }
        if zero_used && let Some(v) = value_regno {
            self.mark_chain_precision(v)?;
        }
        self.diag_record_scrub_stack(frame, min_off, max_off, ModReason::VarWrite);
        Ok(())
    }

    /// `check_stack_read`.
    pub(crate) fn check_stack_read(&mut self, regno: usize, reg: &RegState, off: i64, size: i64, dst: Option<usize>) -> VResult<()> {
        let frame = self.stack_frame_of(reg);
        if dst.is_none() && !tnum_is_const(reg.s.var_off) {
            // a read into no register (a non-fetching atomic's operand)
            // must not leak a pointer: only at a constant offset
            let var_off = tnum_strn(reg.s.var_off);
            self.verbose(&format!("variable offset stack pointer cannot be passed into helper function; var_off={var_off} off={off} size={size}\n"));
            let reason = format!(
                "The helper would access the stack through variable offset {var_off} plus fixed offset {off} and size {size}. Helper stack memory arguments require a constant stack offset and a precise initialized range."
            );
            let idx = self.insn_idx;
            bpf_diag_memory(
                self,
                idx,
                "variable stack access",
                &reason,
                "Use a fixed stack offset for helper memory arguments, or copy the needed bytes into a fixed stack slot first.",
            );
            return errno(EACCES);
        }
        if tnum_is_const(reg.s.var_off) {
            self.check_stack_read_fixed_off(frame, off + reg.s.var_off.value as i64, size, dst)
        } else {
            // check_stack_range_initialized for a read by the program
            let s_off = off;
            if !self.input.privs.bypass_spec_v1 {
                let s = format!("R{regno} variable offset stack access prohibited for !root, var_off={}\n", tnum_strn(reg.s.var_off));
                self.verbose(&s);
                return errno(EACCES);
            }
            let min_off = reg.s.smin() + s_off;
            let max_off = reg.s.smax() + s_off;
            for i in min_off..max_off + size {
                let slot = (-i - 1) as usize;
                let spi = slot / BPF_REG_SIZE;
                let Some(st) = self.cur.frame[frame].stack.get(spi) else {
                    self.verbose("allocated_stack too small\n");
                    return errno(EFAULT);
                };
                let stype = st.slot_type[slot % BPF_REG_SIZE];
                if stype == STACK_MISC || stype == STACK_ZERO || (stype == STACK_INVALID && self.input.privs.allow_uninit_stack) {
                    continue;
                }
                if st.is_spilled_reg() && (st.spilled_ptr.typ == SCALAR_VALUE || self.allow_ptr_leaks()) {
                    continue;
                }
                let s = if stype == STACK_POISON {
                    format!("reading from stack R{regno} off {}+{} size {}\n", min_off, i - min_off, size)
                } else {
                    format!("invalid read from stack R{regno} var_off {}+{} size {}\n", tnum_strn(reg.s.var_off), i - min_off, size)
                };
                self.verbose(&s);
                return errno(EACCES);
            }
            if let Some(d) = dst {
                self.mark_reg_stack_read(frame, min_off, max_off + size, d)?;
            }
            self.check_fastcall_stack_contract(frame, min_off);
            Ok(())
        }
    }

    /// `mark_reg_stack_read`: zero if every byte is known zero, else unknown.
    fn mark_reg_stack_read(&mut self, frame: usize, min_off: i64, max_off: i64, dst: usize) -> VResult<()> {
        let mut zeros = 0;
        let mut zero_spill_mask: u64 = 0;
        for i in min_off..max_off {
            let slot = (-i - 1) as usize;
            let spi = slot / BPF_REG_SIZE;
            self.mark_stack_slot_scratched(spi);
            let Some(st) = self.cur.frame[frame].stack.get(spi) else { break };
            let t = st.slot_type[slot % BPF_REG_SIZE];
            if t == STACK_ZERO {
                zeros += 1;
                continue;
            }
            if t == STACK_SPILL && st.spilled_ptr.is_null() {
                zero_spill_mask |= 1u64 << (spi & 63);
                zeros += 1;
                continue;
            }
            break;
        }
        if zeros == max_off - min_off {
            let z = self.const_zero_reg();
            self.regs_mut()[dst] = z;
            if zero_spill_mask != 0 {
                self.bt_reset();
                self.bt.frame = self.cur.curframe();
                self.bt.stack_masks[frame] |= zero_spill_mask;
                return self.mark_chain_precision_batch();
            }
        } else {
            self.mark_reg_unknown(dst);
        }
        Ok(())
    }

    /// `check_stack_read_fixed_off`.
    fn check_stack_read_fixed_off(&mut self, frame: usize, off: i64, size: i64, dst: Option<usize>) -> VResult<()> {
        let slot = (-off - 1) as usize;
        let spi = slot / BPF_REG_SIZE;
        self.mark_stack_slot_scratched(spi);
        self.check_fastcall_stack_contract(frame, off);
        let Some(st) = self.cur.frame[frame].stack.get(spi).copied() else { return errno(EFAULT) };
        let stype = st.slot_type;
        let mut reg = st.spilled_ptr;
        let allow_uninit = self.input.privs.allow_uninit_stack;
        if let Some(d) = dst {
            // the load being recorded gets the slot as its origin
            let cf = self.cur.curframe();
            let target = self.diag_reg_target(cf, d);
            let origin = self.diag_slot_target(frame, spi);
            self.diag_mod_begin(target, Some(origin), ModReason::Write);
        }
        let bad_byte = |env: &mut Self, t: u8, i: i64| -> VResult<()> {
            if t == STACK_POISON {
                env.verbose(&format!("reading from stack off {off}+{i} size {size}, slot poisoned by dead code elimination\n"));
            } else {
                env.verbose(&format!("invalid read from stack off {off}+{i} size {size}\n"));
                env.bpf_diag_stack_read_uninit(off, i, size);
            }
            errno(EACCES)
        };
        if st.is_spilled_reg() {
            let mut spill_size = 1;
            let mut i = BPF_REG_SIZE - 1;
            while i > 0 && stype[i - 1] == STACK_SPILL {
                spill_size += 1;
                i -= 1;
            }
            if size != BPF_REG_SIZE as i64 || spill_size != BPF_REG_SIZE as i64 {
                if reg.typ != SCALAR_VALUE {
                    self.verbose_linfo(self.insn_idx, "; ");
                    self.verbose("invalid size of register fill\n");
                    return errno(EACCES);
                }
                let Some(d) = dst else { return Ok(()) };
                if size <= spill_size && stack_narrow_access_ok(off, size, spill_size, self.input.arch == Arch::S390x) {
                    if self.bpf_capable() && size == 4 && spill_size == 4 && fls64(reg.s.umax()) <= 32 {
                        self.assign_scalar_id_to(&mut reg);
                        self.cur.frame[frame].stack[spi].spilled_ptr = reg;
                    }
                    let mut r = reg;
                    if fls64(reg.s.umax()) as i64 > size * 8 {
                        r.clear_scalar_id();
                    }
                    self.regs_mut()[d] = r;
                } else {
                    let (mut spill_cnt, mut zero_cnt) = (0, 0);
                    for i in 0..size {
                        let t = stype[(slot - i as usize) % BPF_REG_SIZE];
                        match t {
                            STACK_SPILL => spill_cnt += 1,
                            STACK_MISC => {}
                            STACK_ZERO => zero_cnt += 1,
                            STACK_INVALID if allow_uninit => {}
                            _ => return bad_byte(self, t, i),
                        }
                    }
                    if spill_cnt == size && reg.is_const_off() && reg.s.var_off.value == 0 {
                        // a register fill all the same: the history keeps it
                        let z = self.const_zero_reg();
                        self.regs_mut()[d] = z;
                    } else if zero_cnt == size {
                        let z = self.const_zero_reg();
                        self.regs_mut()[d] = z;
                        return Ok(());
                    } else {
                        self.mark_reg_stack_read(frame, off, off + size, d)?;
                        return Ok(());
                    }
                }
            } else if let Some(d) = dst {
                if self.bpf_capable() {
                    self.assign_scalar_id_to(&mut reg);
                    self.cur.frame[frame].stack[spi].spilled_ptr = reg;
                }
                self.regs_mut()[d] = reg;
            } else if !self.allow_ptr_leaks() && reg.is_pointer() {
                self.verbose(&format!("leaking pointer from stack off {off}\n"));
                return errno(EACCES);
            }
        } else {
            for i in 0..size {
                let t = stype[(slot - i as usize) % BPF_REG_SIZE];
                match t {
                    STACK_MISC | STACK_ZERO => {}
                    STACK_INVALID if allow_uninit => {}
                    _ => return bad_byte(self, t, i),
                }
            }
            if let Some(d) = dst {
                self.mark_reg_stack_read(frame, off, off + size, d)?;
            }
            // not restoring a spilled register
            return Ok(());
        }
        self.push_jmp_history(INSN_F_STACK_ACCESS, spi, frame, 0);
        Ok(())
    }
}

impl Env<'_, '_> {
    /// `bpf_diag_stack_read_uninit`.
    fn bpf_diag_stack_read_uninit(&mut self, off: i64, i: i64, size: i64) {
        let reason = format!(
            "This rejected read uses {size} bytes at stack offset {off}, but byte {i} in that range is uninitialized on this path. Programs loaded with CAP_PERFMON can be allowed to read uninitialized stack bytes, but this program is being rejected without that allowance."
        );
        let idx = self.insn_idx;
        bpf_diag_memory(
            self,
            idx,
            "uninitialized stack read",
            &reason,
            "Initialize every byte in the stack range before reading it, adjust the offset and size so the read covers only initialized bytes, or load with CAP_PERFMON if uninitialized stack reads are intended.",
        );
    }
}

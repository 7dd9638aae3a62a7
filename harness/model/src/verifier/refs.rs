//! Reference tracking (`struct bpf_reference_state` in `verifier.c`):
//! what acquire helpers and kfuncs hand out (sockets, ringbuf records,
//! iterators, referenced dynptrs), locks and IRQ states, their release, and
//! the leak checks at `exit`, tail calls and throws.
//!
//! 7.3 ties derived objects to their parent with `parent_id`: releasing a
//! reference invalidates every register and stack slot whose `id` or
//! `parent_id` is it, transitively (`release_reference`).

use super::diag::{CtxKind, ModReason};
use super::do_check::*;
use super::helper_call::CallArgMeta;
use super::reg::*;
use super::state::*;

impl Env<'_, '_> {
    /// `acquire_reference`: a new pointer reference acquired at
    /// `insn_idx`; returns its id.
    pub(crate) fn acquire_reference(&mut self, insn_idx: usize, parent_id: u32) -> u32 {
        self.id_gen += 1;
        let id = self.id_gen;
        self.cur.refs.push(RefState { typ: REF_TYPE_PTR, id, insn_idx, parent_or_ptr: parent_id as u64 });
        self.diag_record_ref(insn_idx, true, id);
        id
    }

    /// `acquire_lock_state`.
    pub(crate) fn acquire_lock_state(&mut self, insn_idx: usize, typ: u32, id: u32, ptr: u64) {
        self.cur.refs.push(RefState { typ, id, insn_idx, parent_or_ptr: ptr });
        self.cur.active_locks += 1;
        self.cur.active_lock_id = id;
        self.cur.active_lock_ptr = ptr;
        let d = self.cur.active_locks;
        self.diag_record_context(insn_idx, CtxKind::Lock, true, d);
    }

    /// `release_lock_state`: false when no such lock is held.
    pub(crate) fn release_lock_state(&mut self, typ: u32, id: u32, ptr: u64) -> bool {
        let (mut prev_id, mut prev_ptr) = (0, 0);
        for i in 0..self.cur.refs.len() {
            let r = self.cur.refs[i];
            if r.typ == typ && r.id == id && r.parent_or_ptr == ptr {
                self.cur.refs.remove(i);
                self.cur.active_locks = self.cur.active_locks.saturating_sub(1);
                self.cur.active_lock_id = prev_id;
                self.cur.active_lock_ptr = prev_ptr;
                let (idx, d) = (self.insn_idx, self.cur.active_locks);
                self.diag_record_context(idx, CtxKind::Lock, false, d);
                return true;
            }
            if r.typ & REF_TYPE_LOCK_MASK != 0 {
                prev_id = r.id;
                prev_ptr = r.parent_or_ptr;
            }
        }
        false
    }

    /// `find_lock_state`; `any` matches any id and pointer of the type
    /// (the kernel's `find_lock_state(cur, type, 0, NULL)` used as "any
    /// lock of this kind").
    pub(crate) fn find_lock_state(&self, typ: u32, id: u32, ptr: u64, any: bool) -> Option<RefState> {
        self.cur.refs.iter().copied().find(|s| s.typ & typ != 0 && (any || (s.id == id && s.parent_or_ptr == ptr)))
    }

    /// `find_reference_state`: a pointer reference with this id is held.
    pub(crate) fn find_reference_state(&self, id: u32) -> bool {
        id != 0 && self.cur.refs.iter().any(|r| r.typ == REF_TYPE_PTR && r.id == id)
    }

    /// `reg_is_referenced`.
    pub(crate) fn reg_is_referenced(&self, reg: &RegState) -> bool {
        self.find_reference_state(reg.id)
    }

    /// `__release_reference_nomark`: drop the reference, keep registers.
    pub(crate) fn release_reference_nomark(&mut self, id: u32) -> bool {
        let released = release_reference_state(&mut self.cur, id);
        if released {
            let idx = self.insn_idx;
            self.diag_record_ref(idx, false, id);
        }
        released
    }

    /// `validate_ref_obj`.
    pub(crate) fn validate_ref_obj(&mut self, meta: &CallArgMeta) -> VResult<()> {
        if meta.ref_obj_cnt > 1 {
            let s = format!("verifier bug: function expects only one referenced object but got {}\n", meta.ref_obj_cnt);
            self.verbose(&s);
            return errno(EFAULT);
        }
        Ok(())
    }

    /// `release_reference`: release `id` and invalidate everything that
    /// is it or was derived from it (depth first through `parent_id`).
    pub(crate) fn release_reference(&mut self, id: u32) -> VResult<()> {
        let mut idstack: Vec<u32> = Vec::new();
        if id != 0 {
            idstack.push(id);
        }
        if self.find_reference_state(id) {
            self.release_reference_nomark(id);
        }
        let invalid = if !self.allow_ptr_leaks() { RegState::not_init() } else { self.unknown_reg() };
        let mut guard = 0usize;
        while let Some(id) = idstack.pop() {
            guard += 1;
            if guard > 100_000 {
                return errno(EFAULT);
            }
            if let Some(r) = self.cur.refs.iter().find(|r| r.typ == REF_TYPE_PTR && r.parent_or_ptr == id as u64) {
                let s = format!("Leaking reference id={} alloc_insn={}. Release it first.\n", r.id, r.insn_idx);
                self.verbose(&s);
                return errno(EINVAL);
            }
            for fi in 0..self.cur.frame.len() {
                for ri in 0..MAX_BPF_REG {
                    let r = self.cur.frame[fi].regs[ri];
                    if r.id != id && r.parent_id != id {
                        continue;
                    }
                    if r.parent_id == id && r.id != 0 && !idstack.contains(&r.id) {
                        idstack.push(r.id);
                    }
                    let t = self.diag_reg_target(fi, ri);
                    self.diag_record_scrub(t, ModReason::RefRelease);
                    self.cur.frame[fi].regs[ri] = invalid;
                }
                let n = self.cur.frame[fi].stack.len();
                let mut spi = 0;
                while spi < n {
                    let t = self.cur.frame[fi].stack[spi].slot_type[BPF_REG_SIZE - 1];
                    if t != STACK_SPILL && t != STACK_DYNPTR {
                        spi += 1;
                        continue;
                    }
                    let r = self.cur.frame[fi].stack[spi].spilled_ptr;
                    if r.id != id && r.parent_id != id {
                        spi += 1;
                        continue;
                    }
                    if r.parent_id == id && r.id != 0 && !idstack.contains(&r.id) {
                        idstack.push(r.id);
                    }
                    if t == STACK_DYNPTR {
                        // both slots of the dynptr go, whichever was found;
                        // both scrubs are recorded first
                        let first = if r.aux2 != 0 { spi } else { spi + 1 };
                        for s in [first, first.wrapping_sub(1)] {
                            if s < n {
                                let target = self.diag_slot_target(fi, s);
                                self.diag_record_scrub(target, ModReason::RefRelease);
                            }
                        }
                        for s in [first, first.wrapping_sub(1)] {
                            if let Some(slot) = self.cur.frame[fi].stack.get_mut(s) {
                                slot.slot_type = [STACK_INVALID; BPF_REG_SIZE];
                                slot.spilled_ptr = RegState::not_init();
                            }
                        }
                    } else {
                        let target = self.diag_slot_target(fi, spi);
                        self.diag_record_scrub(target, ModReason::RefRelease);
                        self.cur.frame[fi].stack[spi].spilled_ptr = invalid;
                    }
                    spi += 1;
                }
            }
        }
        Ok(())
    }

    /// `release_reg`: what `OBJ_RELEASE` arguments do.
    pub(crate) fn release_reg(&mut self, reg: &RegState, convert_rcu: bool, release_dynptr: bool) -> VResult<()> {
        if reg.is_null() {
            return Ok(());
        }
        if release_dynptr {
            return self.unmark_stack_slots_dynptr(reg);
        }
        if convert_rcu {
            return self.ref_convert_alloc_rcu_protected(reg.id);
        }
        if self.reg_is_referenced(reg) {
            return self.release_reference(reg.id);
        }
        errno(EINVAL)
    }

    /// `ref_convert_alloc_rcu_protected`: the percpu object `id` handed to
    /// a kptr is no longer owned, but stays an RCU pointer where it is held.
    fn ref_convert_alloc_rcu_protected(&mut self, id: u32) -> VResult<()> {
        if !self.release_reference_nomark(id) {
            return errno(EINVAL);
        }
        let write = super::diag::ModReason::Write;
        let percpu_alloc = |r: &RegState| r.id == id && r.typ & MEM_ALLOC != 0 && r.typ & MEM_PERCPU != 0;
        let convert = |r: &mut RegState| {
            r.id = 0;
            r.typ &= !MEM_ALLOC;
            r.typ |= MEM_RCU;
        };
        for fi in 0..self.cur.frame.len() {
            for ri in 0..self.cur.frame[fi].regs.len() {
                if percpu_alloc(&self.cur.frame[fi].regs[ri]) {
                    let t = self.diag_reg_target(fi, ri);
                    self.diag_mod_begin(t, None, write);
                    convert(&mut self.cur.frame[fi].regs[ri]);
                    self.diag_mod_end();
                }
            }
            for spi in 0..self.cur.frame[fi].stack.len() {
                let s = &self.cur.frame[fi].stack[spi];
                if s.is_spilled_reg() && percpu_alloc(&s.spilled_ptr) {
                    let t = self.diag_slot_target(fi, spi);
                    self.diag_mod_begin(t, None, write);
                    convert(&mut self.cur.frame[fi].stack[spi].spilled_ptr);
                    self.diag_mod_end();
                }
            }
        }
        Ok(())
    }

    /// `invalidate_non_owning_refs`.
    pub(crate) fn invalidate_non_owning_refs(&mut self) {
        let invalid = if !self.allow_ptr_leaks() { RegState::not_init() } else { self.unknown_reg() };
        let non_own = |r: &RegState| super::graph::type_is_non_owning_ref(r.typ);
        for fi in 0..self.cur.frame.len() {
            for ri in 0..self.cur.frame[fi].regs.len() {
                if non_own(&self.cur.frame[fi].regs[ri]) {
                    let t = self.diag_reg_target(fi, ri);
                    self.diag_record_scrub(t, super::diag::ModReason::NonOwnRef);
                    self.cur.frame[fi].regs[ri] = invalid;
                }
            }
            for spi in 0..self.cur.frame[fi].stack.len() {
                let st = &self.cur.frame[fi].stack[spi];
                if st.is_spilled_reg() && non_own(&st.spilled_ptr) {
                    let t = self.diag_slot_target(fi, spi);
                    self.diag_record_scrub(t, super::diag::ModReason::NonOwnRef);
                    self.cur.frame[fi].stack[spi].spilled_ptr = invalid;
                }
            }
        }
    }

    /// `invalidate_rcu_protected_refs`: leaving the RCU section makes RCU
    /// pointers untrusted.
    pub(crate) fn invalidate_rcu_protected_refs(&mut self) {
        let untrust = |r: &mut RegState| {
            r.typ &= !(MEM_RCU | PTR_MAYBE_NULL | NON_OWN_REF);
            r.typ |= PTR_UNTRUSTED;
        };
        let write = super::diag::ModReason::Write;
        for fi in 0..self.cur.frame.len() {
            for ri in 0..self.cur.frame[fi].regs.len() {
                if self.cur.frame[fi].regs[ri].typ & MEM_RCU != 0 {
                    let t = self.diag_reg_target(fi, ri);
                    self.diag_mod_begin(t, None, write);
                    untrust(&mut self.cur.frame[fi].regs[ri]);
                    self.diag_mod_end();
                }
            }
            for spi in 0..self.cur.frame[fi].stack.len() {
                let s = &self.cur.frame[fi].stack[spi];
                let t = s.slot_type[BPF_REG_SIZE - 1];
                if (t == STACK_SPILL || t == STACK_ITER) && s.spilled_ptr.typ & MEM_RCU != 0 {
                    let t = self.diag_slot_target(fi, spi);
                    self.diag_mod_begin(t, None, write);
                    untrust(&mut self.cur.frame[fi].stack[spi].spilled_ptr);
                    self.diag_mod_end();
                }
            }
        }
    }

    /// `check_reference_leak`: at the exit of the main program every
    /// pointer reference must be gone.
    pub(crate) fn check_reference_leak(&mut self, exception_exit: bool) -> VResult<()> {
        if !exception_exit && self.cur.cur().frameno != 0 {
            return Ok(());
        }
        let mut lingering = false;
        let refs = self.cur.refs.clone();
        for r in refs {
            if r.typ != REF_TYPE_PTR {
                continue;
            }
            let s = format!("Unreleased reference id={} alloc_insn={}\n", r.id, r.insn_idx);
            self.verbose(&s);
            let idx = self.insn_idx;
            self.bpf_diag_leak(r.id, r.insn_idx, idx);
            lingering = true;
        }
        if lingering { errno(EINVAL) } else { Ok(()) }
    }

    /// `check_resource_leak`: locks, references, IRQ, RCU and preemption
    /// states that must not survive `prefix`.
    pub(crate) fn check_resource_leak(&mut self, exception_exit: bool, check_lock: bool, prefix: &str) -> VResult<()> {
        let idx = self.insn_idx;
        if check_lock && self.cur.active_locks > 0 {
            self.verbose(&format!("{prefix} cannot be used inside bpf_spin_lock-ed region\n"));
            self.bpf_diag_ctx_active(idx, prefix, CtxKind::Lock, "Release the BPF spin lock before this operation on every path.");
            return errno(EINVAL);
        }
        if let Err(e) = self.check_reference_leak(exception_exit) {
            self.verbose(&format!("{prefix} would lead to reference leak\n"));
            return Err(e);
        }
        if check_lock && self.cur.active_irq_id != 0 {
            self.verbose(&format!("{prefix} cannot be used inside bpf_local_irq_save-ed region\n"));
            self.bpf_diag_ctx_active(idx, prefix, CtxKind::Irq, "Restore the saved IRQ state before this operation on every path.");
            return errno(EINVAL);
        }
        if check_lock && self.cur.active_rcu_locks > 0 {
            self.verbose(&format!("{prefix} cannot be used inside bpf_rcu_read_lock-ed region\n"));
            self.bpf_diag_ctx_active(idx, prefix, CtxKind::Rcu, "Call bpf_rcu_read_unlock() before this operation on every path.");
            return errno(EINVAL);
        }
        if check_lock && self.cur.active_preempt_locks > 0 {
            self.verbose(&format!("{prefix} cannot be used inside bpf_preempt_disable-ed region\n"));
            self.bpf_diag_ctx_active(idx, prefix, CtxKind::Preempt, "Call bpf_preempt_enable() before this operation on every path.");
            return errno(EINVAL);
        }
        Ok(())
    }

    /// `mark_ptr_or_null_regs`: after `if rX == 0`, every register and
    /// spill sharing rX's id is NULL on one side and non-NULL on the other.
    /// `unpriv`: registers of an unprivileged load are all precise, and a
    /// NULL pointer keeps that when it becomes the scalar 0
    /// (`__mark_reg_known_zero` leaves `precise` alone).
    pub(crate) fn mark_ptr_or_null_regs(st: &mut VerifierState, regno: usize, is_null: bool, unpriv: bool) {
        let id = st.cur().regs.get(regno).map_or(0, |r| r.id);
        if is_null && id != 0 && st.refs.iter().any(|r| r.typ == REF_TYPE_PTR && r.id == id) {
            release_reference_state(st, id);
        }
        let mark = |r: &mut RegState| {
            if !type_may_be_null(r.typ) || r.id != id || id == 0 {
                return;
            }
            let alloc_or_non_own = r.typ & (MEM_ALLOC | NON_OWN_REF) != 0 && base_type(r.typ) == PTR_TO_BTF_ID;
            if !alloc_or_non_own && (!super::tnum::tnum_is_const(r.s.var_off) || r.s.var_off.value != 0) {
                return;
            }
            if is_null {
                *r = RegState::known(0);
                r.precise = unpriv;
                return;
            }
            r.typ &= !PTR_MAYBE_NULL;
        };
        for f in st.frame.iter_mut() {
            f.regs.iter_mut().for_each(mark);
            for s in f.stack.iter_mut() {
                if s.is_spilled_reg() {
                    mark(&mut s.spilled_ptr);
                }
            }
        }
    }
}

/// `release_reference_state` by id (pointer references only); keeps the
/// order of the rest (IRQ states rely on it).
fn release_reference_state(st: &mut VerifierState, id: u32) -> bool {
    match st.refs.iter().position(|r| r.typ == REF_TYPE_PTR && r.id == id) {
        Some(i) => {
            st.refs.remove(i);
            true
        }
        None => false,
    }
}

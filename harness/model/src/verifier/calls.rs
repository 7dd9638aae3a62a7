//! Calls and frames in the main pass: the dispatch of a `call`,
//! BPF-to-BPF calls (`check_func_call`, `setup_func_entry`,
//! `prepare_func_exit`), callbacks (`push_callback_call` and the
//! `set_*_callback_state` of `bpf_loop`, `bpf_for_each_map_elem`, timers),
//! global functions (`do_check_subprogs` is in [`super::do_check`]), the
//! exit of a frame and the per-subprogram instruction accounting.
//!
//! Helper calls and their arguments are in [`super::helper_call`], kfuncs
//! in [`super::kfuncs`], reference tracking in [`super::refs`], maps as
//! arguments in [`super::maps`].

use bpf_isa::Insn;
use bpf_isa::insn::op::*;

use super::btf_args::{self, PrepareError, PrepareInput, SubprogArgInfo};
use super::diag::{CtxKind, ModReason};
use super::do_check::*;
use super::helper_call::CallArgMeta;
use super::helper_protos::*;
use super::helpers::{self, func};
use super::reg::*;
use super::state::*;

/// `CALLER_SAVED_REGS`: r0..r5.
pub const CALLER_SAVED_REGS: usize = 6;
pub use crate::limits::MAX_CALL_FRAMES;

/// `struct bpf_subprog_info` as the main pass keeps it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubprogRt {
    pub start: usize,
    pub stack_depth: u32,
    /// Called as a callback (`push_callback_call`).
    pub is_cb: bool,
    pub is_async_cb: bool,
    /// `func_info_aux[i].called[sleepable]`: a global function was called
    /// in that context and must be verified in it.
    pub called: [bool; 2],
    pub verified: [bool; 2],
    /// `func_info_aux[i].unreliable`: its BTF did not match a call.
    pub unreliable: bool,
    /// `args` once `args_cached`: what `btf_prepare_func_args` derived.
    pub args: Option<Vec<SubprogArgInfo>>,
    pub insns_self: u32,
    pub insns_total: u32,
    pub tail_call_reachable: bool,
    /// `priv_stack_mode == PRIV_STACK_ADAPTIVE`.
    pub priv_stack: bool,
    /// `fastcall_stack_off`: lowered to `i16::MIN` by
    /// `check_fastcall_stack_contract`.
    pub fastcall_stack_off: i16,
}

impl SubprogRt {
    /// The table for `input.subprogs` (one entry when it is empty).
    pub(crate) fn from_input(input: &DoCheckInput<'_>) -> Vec<SubprogRt> {
        if input.subprogs.is_empty() {
            return vec![SubprogRt::default()];
        }
        input.subprogs.iter().map(|s| SubprogRt { start: s.start, fastcall_stack_off: s.fastcall_stack_off, ..SubprogRt::default() }).collect()
    }
}

impl Env<'_, '_> {
    /// The front end's `subprog_info` start of `subprog`.
    pub(crate) fn subprog_start(&self, subprog: usize) -> usize {
        self.subprogs.get(subprog).map_or(0, |s| s.start)
    }

    /// `bpf_find_subprog`: the subprogram starting at `off`.
    pub(crate) fn find_subprog(&self, off: i64) -> Option<usize> {
        if self.subprogs.len() <= 1 && self.input.subprogs.is_empty() {
            return (off == 0).then_some(0);
        }
        self.subprogs.iter().position(|s| s.start as i64 == off)
    }

    /// `bpf_subprog_is_global`.
    pub(crate) fn subprog_is_global(&self, subprog: usize) -> bool {
        self.input.subprogs.get(subprog).is_some_and(|s| s.global)
    }

    /// `bpf_subprog_name`.
    pub(crate) fn subprog_name(&self, subprog: usize) -> String {
        self.input.subprogs.get(subprog).map(|s| s.name.clone()).unwrap_or_default()
    }

    /// `bpf_calls_callback`: a call insn that invokes a callback
    /// synchronously (`mark_calls_callback` in `check_cfg`).
    pub(crate) fn calls_callback(&self, idx: usize) -> bool {
        let insn = self.insn(idx);
        insn.is_call()
            && ((insn.src == 0 && helpers::is_sync_callback_calling_function(insn.imm))
                || (insn.src == BPF_PSEUDO_KFUNC_CALL && super::kfuncs::is_sync_callback_calling_kfunc(self, insn.imm)))
    }

    /// `account_processed_insn`.
    pub(crate) fn account_processed_insn(&mut self) {
        self.stats.insn_processed += 1;
        let f = self.cur.cur_mut();
        // u32 counters, as the kernel's (they wrap on very long runs)
        f.insns_subtotal = f.insns_subtotal.wrapping_add(1);
        let sp = f.subprogno;
        if let Some(s) = self.subprogs.get_mut(sp) {
            s.insns_self = s.insns_self.wrapping_add(1);
        }
    }

    /// `account_processed_insns` for one frame returning to `caller`.
    fn account_processed_insns(&mut self, callee: usize) {
        let Some(f) = self.cur.frame.get_mut(callee) else { return };
        let insns = f.insns_subtotal;
        f.insns_subtotal = 0;
        let sp = f.subprogno;
        if let Some(s) = self.subprogs.get_mut(sp) {
            s.insns_total = s.insns_total.wrapping_add(insns);
        }
        if callee > 0 {
            let c = &mut self.cur.frame[callee - 1].insns_subtotal;
            *c = c.wrapping_add(insns);
        }
    }

    /// `account_current_path`.
    pub(crate) fn account_current_path(&mut self) {
        for fr in (0..self.cur.frame.len()).rev() {
            self.account_processed_insns(fr);
        }
    }

    /// `in_rcu_cs`.
    pub(crate) fn in_rcu_cs(&self) -> bool {
        let c = &self.cur;
        c.active_rcu_locks > 0 || c.active_locks > 0 || c.active_irq_id != 0 || c.active_preempt_locks > 0 || !self.in_sleepable()
    }

    /// `in_sleepable`.
    pub(crate) fn in_sleepable(&self) -> bool {
        self.cur.in_sleepable
    }

    /// `in_sleepable_context`.
    pub(crate) fn in_sleepable_context(&self) -> bool {
        !self.in_rcu_cs()
    }

    /// `non_sleepable_context_description`.
    pub(crate) fn non_sleepable_context_description(&self) -> &'static str {
        let c = &self.cur;
        if c.active_rcu_locks > 0 {
            "rcu_read_lock region"
        } else if c.active_preempt_locks > 0 {
            "non-preemptible region"
        } else if c.active_irq_id != 0 {
            "IRQ-disabled region"
        } else if c.active_locks > 0 {
            "lock region"
        } else {
            "non-sleepable prog"
        }
    }

    /// `clear_all_pkt_pointers`: packet data may have moved.
    pub(crate) fn clear_all_pkt_pointers(&mut self) {
        let inv = if !self.allow_ptr_leaks() { RegState::not_init() } else { self.unknown_reg() };
        let pkt = |r: &RegState| {
            r.is_pkt_pointer_any() || (base_type(r.typ) == PTR_TO_MEM && r.typ & (DYNPTR_TYPE_SKB | DYNPTR_TYPE_XDP | DYNPTR_TYPE_SKB_META) != 0)
        };
        for fi in 0..self.cur.frame.len() {
            for ri in 0..MAX_BPF_REG {
                if pkt(&self.cur.frame[fi].regs[ri]) {
                    let t = self.diag_reg_target(fi, ri);
                    self.diag_record_scrub(t, ModReason::PktDataChange);
                    self.cur.frame[fi].regs[ri] = inv;
                }
            }
            for spi in 0..self.cur.frame[fi].stack.len() {
                let st = &self.cur.frame[fi].stack[spi];
                if st.is_spilled_reg() && pkt(&st.spilled_ptr) {
                    let t = self.diag_slot_target(fi, spi);
                    self.diag_record_scrub(t, ModReason::PktDataChange);
                    self.cur.frame[fi].stack[spi].spilled_ptr = inv;
                }
            }
        }
    }

    /// `clear_caller_saved_regs` (r0..r5 of the current frame).
    fn clear_caller_saved_regs(&mut self) {
        self.bpf_diag_record_caller_saved();
        for i in 0..CALLER_SAVED_REGS {
            self.regs_mut()[i] = RegState::not_init();
            self.mark_reg_scratched(i);
        }
    }

    /// Dispatch of `BPF_CALL` in `do_check_insn`, with the lock rule.
    pub(crate) fn do_check_call(&mut self, insn: &Insn) -> VResult<Next> {
        if self.cur.active_locks > 0 {
            let forbidden = (insn.src == 0 && insn.imm != func::SPIN_UNLOCK && insn.imm != func::KPTR_XCHG)
                || (insn.src == BPF_PSEUDO_KFUNC_CALL && !super::kfuncs::kfunc_spin_allowed(self, insn.imm, insn.off));
            if forbidden {
                self.verbose("function calls are not allowed while holding a lock\n");
                let idx = self.insn_idx;
                self.bpf_diag_ctx_active(
                    idx,
                    "function call",
                    CtxKind::Lock,
                    "Release the BPF spin lock before making this call, or move the call outside the locked region.",
                );
                return errno(EINVAL);
            }
        }
        self.mark_reg_scratched(0);
        match insn.src {
            BPF_PSEUDO_CALL => self.check_func_call(insn),
            BPF_PSEUDO_KFUNC_CALL => self.check_kfunc_call(insn),
            _ => self.check_helper_call(insn),
        }
    }

    /// `verbose_invalid_scalar`.
    pub(crate) fn verbose_invalid_scalar(&mut self, reg: &RegState, range: RetvalRange, ctx: &str, reg_name: &str) {
        let mut s = format!("{ctx} the register {reg_name} has");
        let mut unknown = true;
        if reg.s.smin() > i64::MIN {
            s.push_str(&format!(" smin={}", reg.s.smin()));
            unknown = false;
        }
        if reg.s.smax() < i64::MAX {
            s.push_str(&format!(" smax={}", reg.s.smax()));
            unknown = false;
        }
        if unknown {
            s.push_str(" unknown scalar value");
        }
        s.push_str(&format!(" should have been in [{}, {}]\n", range.minval, range.maxval));
        self.verbose(&s);
    }

    /// `check_ld_imm` of `BPF_PSEUDO_FUNC`: a callback's address.
    pub(crate) fn check_ld_imm_func(&mut self, insn: &Insn, dst: usize) -> VResult<()> {
        let target = self.insn_idx as i64 + insn.imm as i64 + 1;
        let subprogno = self.find_subprog(target).unwrap_or(0);
        if !self.input.has_func_info {
            self.verbose("missing btf func_info\n");
            return errno(EINVAL);
        }
        if self.subprog_is_global(subprogno) {
            self.verbose("callback function not static\n");
            return errno(EINVAL);
        }
        if subprogno == 0 {
            self.verbose("callback function cannot be the main program\n");
            return errno(EINVAL);
        }
        self.regs_mut()[dst] = RegState::ptr(PTR_TO_FUNC, subprogno as i64);
        Ok(())
    }

    /// `check_func_call`: a bpf-to-bpf call.
    fn check_func_call(&mut self, insn: &Insn) -> VResult<Next> {
        let target = self.insn_idx as i64 + insn.imm as i64 + 1;
        let Some(subprog) = self.find_subprog(target) else {
            self.verbose(&format!("verifier bug: target of func call at insn {} is not a program (subprog < 0)\n", self.insn_idx));
            return errno(EFAULT);
        };
        let err = self.btf_check_subprog_call(subprog);
        if let Err(DoCheckError::Errno(EFAULT)) = err {
            return errno(EFAULT);
        }
        if let Err(e @ DoCheckError::Unsupported(_)) = err {
            return Err(e);
        }
        if self.subprog_is_global(subprog) {
            let name = self.subprog_name(subprog);
            if self.cur.active_locks > 0 {
                self.verbose("global function calls are not allowed while holding a lock,\nuse static function instead\n");
                let idx = self.insn_idx;
                self.bpf_diag_ctx_active(
                    idx,
                    &format!("global function {name}()"),
                    CtxKind::Lock,
                    "Release the lock before calling the global function, or use a static function instead.",
                );
                return errno(EINVAL);
            }
            let desc = self.input.subprogs.get(subprog).cloned().unwrap_or_default();
            if desc.might_sleep && !self.in_sleepable_context() {
                let s = format!("sleepable global function {name}() called in {}\n", self.non_sleepable_context_description());
                self.verbose(&s);
                return errno(EINVAL);
            }
            if let Err(e) = err {
                self.verbose(&format!("Caller passes invalid args into func#{subprog} ('{name}')\n"));
                return Err(e);
            }
            if self.level() & BPF_LOG_LEVEL != 0 {
                self.verbose(&format!("Func#{subprog} ('{name}') is global and assumed valid.\n"));
            }
            let ctx = self.in_sleepable_context() as usize;
            if let Some(sp) = self.subprogs.get_mut(subprog) {
                sp.called[ctx] = true;
            }
            if desc.changes_pkt_data {
                self.clear_all_pkt_pointers();
            }
            let t0 = self.diag_reg_target(self.cur.curframe(), 0);
            if desc.returns_void {
                self.diag_record_scrub(t0, ModReason::CallerSaved);
            } else {
                self.diag_mod_begin(t0, None, ModReason::Write);
            }
            self.clear_caller_saved_regs();
            if !desc.returns_void {
                self.mark_reg_unknown(0);
                self.diag_mod_end();
            }
            if desc.might_throw {
                let idx = self.insn_idx;
                self.push_stack(idx + 1, idx, false)?;
                return self.process_bpf_exit_full(true);
            }
            return Ok(Next::Fallthrough);
        }
        self.setup_func_entry(subprog, self.insn_idx, CallbackKind::Plain, None)?;
        let caller = self.cur.curframe() - 1;
        let t0 = self.diag_reg_target(caller, 0);
        self.diag_record_scrub(t0, ModReason::CallerSaved);
        self.clear_caller_saved_regs_frame(caller);
        self.insn_idx = self.subprog_start(subprog);
        if self.level() & BPF_LOG_LEVEL != 0 {
            self.verbose("caller:\n");
            let f = self.cur.curframe();
            self.print_state_frame(f - 1);
            self.verbose("callee:\n");
            self.print_state_frame(f);
        }
        Ok(Next::Updated)
    }

    /// `print_verifier_state(env, state, frame, true)`.
    fn print_state_frame(&mut self, frame: usize) {
        let mut s = String::new();
        super::print::print_verifier_state(&mut s, &self.cur, frame, true, &self.scratch, &self.maps);
        self.verbose(&s);
    }

    /// `clear_caller_saved_regs` of frame `fr` (the caller after a call).
    fn clear_caller_saved_regs_frame(&mut self, fr: usize) {
        for r in 1..CALLER_SAVED_REGS {
            let t = self.diag_reg_target(fr, r);
            self.diag_record_scrub(t, ModReason::CallerSaved);
        }
        for i in 0..CALLER_SAVED_REGS {
            self.cur.frame[fr].regs[i] = RegState::not_init();
            self.mark_reg_scratched(i);
        }
    }

    /// `btf_prepare_func_args`, cached per subprogram once it succeeds.
    /// Without the program's BTF every prototype is `int (int, ...)`.
    pub(crate) fn prepare_func_args(&mut self, subprog: usize) -> VResult<()> {
        if self.subprogs.get(subprog).is_some_and(|s| s.args.is_some()) {
            return Ok(());
        }
        let desc = self.input.subprogs.get(subprog).cloned().unwrap_or_default();
        let args = match self.input.prog_btf.filter(|_| desc.type_id != 0) {
            None if desc.nargs as usize > btf_args::MAX_BPF_FUNC_REG_ARGS => {
                return Err(DoCheckError::Unsupported("stack arguments of global functions are not modelled".into()));
            }
            None => vec![SubprogArgInfo::ANYTHING; desc.nargs as usize],
            Some(btf) => {
                let inp = PrepareInput {
                    btf,
                    func_id: desc.type_id,
                    subprog,
                    is_global: desc.global,
                    prog_type: self.input.prog_type,
                    expected_attach_type: self.input.expected_attach_type,
                    arch: self.input.arch,
                    vmlinux: self.input.vmlinux_btf,
                };
                let mut log = String::new();
                let r = btf_args::btf_prepare_func_args(&inp, &mut log);
                self.verbose(&log);
                match r {
                    Ok(a) => a,
                    Err(PrepareError::Errno(e)) => return errno(e),
                    Err(PrepareError::Unsupported(what)) => return Err(DoCheckError::Unsupported(format!("btf_prepare_func_args: {what}"))),
                }
            }
        };
        if let Some(sp) = self.subprogs.get_mut(subprog) {
            sp.args = Some(args);
        }
        Ok(())
    }

    /// What `do_check_common` puts in an argument register of a global
    /// function verified on its own.
    pub(crate) fn global_arg_reg(&mut self, arg: &SubprogArgInfo) -> RegState {
        let t = arg.arg_type;
        if t == ARG_PTR_TO_CTX {
            return RegState::ptr(PTR_TO_CTX, 0);
        }
        if t == ARG_PTR_TO_DYNPTR {
            self.id_gen += 1;
            return super::kfuncs::dynptr_cb_reg(super::kfuncs::dynptr::LOCAL, self.id_gen);
        }
        if base_type(t) == ARG_PTR_TO_MEM {
            let mut r = RegState::ptr(PTR_TO_MEM | (t & (PTR_MAYBE_NULL | PTR_UNTRUSTED | MEM_RDONLY)), arg.mem_size as i64);
            if t & PTR_MAYBE_NULL != 0 {
                self.id_gen += 1;
                r.id = self.id_gen;
            }
            return r;
        }
        if base_type(t) == ARG_PTR_TO_BTF_ID {
            let mut r = RegState::ptr(PTR_TO_BTF_ID | (t & (PTR_MAYBE_NULL | PTR_UNTRUSTED | PTR_TRUSTED)), arg.btf_id);
            self.id_gen += 1;
            r.id = self.id_gen;
            return r;
        }
        // scalars, and arena pointers (a caller passes either)
        self.unknown_reg()
    }

    /// `btf_check_subprog_call`: a subprogram's BTF prototype against the
    /// caller's registers (`btf_check_func_arg_match`); a mismatch makes
    /// its BTF unreliable.
    fn btf_check_subprog_call(&mut self, subprog: usize) -> VResult<()> {
        if !self.input.has_func_info {
            return errno(EINVAL);
        }
        if self.subprogs.get(subprog).is_some_and(|s| s.unreliable) {
            return errno(EINVAL);
        }
        let res = self.btf_check_func_arg_match(subprog);
        if res.is_err()
            && let Some(sp) = self.subprogs.get_mut(subprog)
        {
            sp.unreliable = true;
        }
        res
    }

    /// `btf_check_func_arg_match`.
    fn btf_check_func_arg_match(&mut self, subprog: usize) -> VResult<()> {
        self.prepare_func_args(subprog)?;
        let args = self.subprogs.get(subprog).and_then(|s| s.args.clone()).unwrap_or_default();
        let changes_pkt_data = self.input.subprogs.get(subprog).is_some_and(|s| s.changes_pkt_data);
        for (i, arg) in args.iter().enumerate() {
            let regno = i + 1;
            let reg = self.regs()[regno];
            let t = arg.arg_type;
            if t == ARG_ANYTHING {
                if reg.typ != SCALAR_VALUE {
                    self.verbose(&format!("R{regno} is not a scalar\n"));
                    return errno(EINVAL);
                }
            } else if t & PTR_UNTRUSTED != 0 {
                // read-only through probe reads: anything goes
            } else if t == ARG_PTR_TO_CTX {
                self.check_func_arg_reg_off(&reg, regno, ARG_PTR_TO_CTX)?;
                if reg.typ != PTR_TO_CTX {
                    self.verbose(&format!("R{regno} expects pointer to ctx\n"));
                    return errno(EINVAL);
                }
            } else if base_type(t) == ARG_PTR_TO_MEM {
                self.check_func_arg_reg_off(&reg, regno, ARG_DONTCARE)?;
                let size = arg.mem_size as i64;
                let checked = self.check_mem_reg(&reg, regno, size, false, None).and_then(|_| self.check_mem_reg(&reg, regno, size, true, None));
                if let Err(e) = checked {
                    return match e {
                        DoCheckError::Errno(_) => errno(EINVAL),
                        u => Err(u),
                    };
                }
                let dynptr_pkt = base_type(reg.typ) == PTR_TO_MEM && reg.typ & (DYNPTR_TYPE_SKB | DYNPTR_TYPE_XDP | DYNPTR_TYPE_SKB_META) != 0;
                if (reg.is_pkt_pointer_any() || dynptr_pkt) && changes_pkt_data {
                    self.verbose(&format!("R{regno} is a packet pointer, but func#{subprog} may change packet data\n"));
                    return errno(EINVAL);
                }
                if t & PTR_MAYBE_NULL == 0 && (type_may_be_null(reg.typ) || reg.is_null()) {
                    self.verbose(&format!("R{regno} is expected to be non-NULL\n"));
                    return errno(EINVAL);
                }
            } else if base_type(t) == ARG_PTR_TO_ARENA {
                if reg.typ != PTR_TO_ARENA && reg.typ != SCALAR_VALUE {
                    self.verbose(&format!("R{regno} is not a pointer to arena or scalar.\n"));
                    return errno(EINVAL);
                }
            } else if t == ARG_PTR_TO_DYNPTR {
                self.check_func_arg_reg_off(&reg, regno, ARG_PTR_TO_DYNPTR)?;
                let name = self.subprog_name(subprog);
                let mut meta = CallArgMeta::default();
                self.process_dynptr_func(&reg, regno, &name, t, &mut meta, false)?;
            } else if base_type(t) == ARG_PTR_TO_BTF_ID {
                if reg.is_null() && type_may_be_null(t) {
                    self.mark_chain_precision(regno)?;
                    continue;
                }
                let name = super::kfuncs::btf_type_name(arg.btf_id).to_string();
                let meta = CallArgMeta::default();
                self.check_reg_type(&reg, regno, t, &name, &meta)?;
                self.check_func_arg_reg_off(&reg, regno, t)?;
            } else {
                self.verbose(&format!("verifier bug: unrecognized R{regno} type {t}\n"));
                return errno(EFAULT);
            }
        }
        Ok(())
    }

    /// `setup_func_entry`: a new frame for `subprog` called at `callsite`;
    /// `state` is a queued branch (callbacks) or the current state.
    fn setup_func_entry(&mut self, subprog: usize, callsite: usize, kind: CallbackKind, state: Option<usize>) -> VResult<()> {
        let curframe = match state {
            Some(i) => self.stack[i].st.curframe(),
            None => self.cur.curframe(),
        };
        if curframe + 1 >= MAX_CALL_FRAMES {
            self.verbose(&format!("the call stack of {} frames is too deep\n", curframe + 2));
            return errno(E2BIG);
        }
        let caller = match state {
            Some(i) => self.stack[i].st.frame[curframe].clone(),
            None => self.cur.frame[curframe].clone(),
        };
        let mut callee = self.init_func_state(callsite as i64, curframe + 1, subprog);
        self.scratch.mark_all();
        self.set_callee_state(kind, &caller, &mut callee, callsite)?;
        match state {
            Some(i) => self.stack[i].st.frame.push(callee),
            None => self.cur.frame.push(callee),
        }
        Ok(())
    }

    /// The `set_callee_state_fn`s: the callee's registers at entry.
    fn set_callee_state(&mut self, kind: CallbackKind, caller: &FuncState, callee: &mut FuncState, callsite: usize) -> VResult<()> {
        let r = &mut callee.regs;
        match kind {
            CallbackKind::Plain => {
                r[1..=5].copy_from_slice(&caller.regs[1..=5]);
            }
            CallbackKind::Loop => {
                r[1] = RegState::unknown_imprecise();
                r[1].typ = SCALAR_VALUE;
                r[1].precise = !self.bpf_capable();
                r[2] = caller.regs[3];
                callee.in_callback_fn = true;
                callee.callback_ret_range = RetvalRange::new(0, 1);
            }
            CallbackKind::MapElem => {
                let Some(m) = self.aux.get(callsite).and_then(|a| a.map_ptr).map(|m| m as usize) else { return errno(EFAULT) };
                let mt_ = self.maps.get(m).map_or(0, |m| m.map_type);
                if !super::maps::has_for_each_callback(mt_) {
                    self.verbose("callback function not allowed for map\n");
                    return errno(ENOTSUPP);
                }
                let (mp, uid) = (caller.regs[1].aux, caller.regs[1].map_uid);
                r[1] = caller.regs[1];
                r[2] = RegState::ptr(PTR_TO_MAP_KEY, mp);
                r[2].map_uid = uid;
                r[3] = RegState::ptr(PTR_TO_MAP_VALUE, mp);
                r[3].map_uid = uid;
                self.id_gen += 1;
                r[3].id = self.id_gen;
                r[4] = caller.regs[3];
                r[5] = RegState::not_init();
                callee.in_callback_fn = true;
                callee.callback_ret_range = RetvalRange::new(0, 1);
            }
            CallbackKind::Timer => {
                let (mp, uid) = (caller.regs[1].aux, caller.regs[1].map_uid);
                r[1] = RegState::ptr(CONST_PTR_TO_MAP, mp);
                r[1].map_uid = uid;
                r[2] = RegState::ptr(PTR_TO_MAP_KEY, mp);
                r[2].map_uid = uid;
                r[3] = RegState::ptr(PTR_TO_MAP_VALUE, mp);
                r[3].map_uid = uid;
                self.id_gen += 1;
                r[3].id = self.id_gen;
                r[4] = RegState::not_init();
                r[5] = RegState::not_init();
                callee.in_async_callback_fn = true;
                callee.callback_ret_range = RetvalRange::new(0, 0);
            }
            // set_find_vma_callback_state: (task, vma, callback_ctx)
            CallbackKind::FindVma => {
                r[1] = caller.regs[1];
                r[2] = RegState::ptr(PTR_TO_BTF_ID, super::kfuncs::btf_type_id_interned("vm_area_struct"));
                r[3] = caller.regs[4];
                r[4] = RegState::not_init();
                r[5] = RegState::not_init();
                callee.in_callback_fn = true;
                callee.callback_ret_range = RetvalRange::new(0, 1);
            }
            CallbackKind::RbtreeAdd => self.set_rbtree_add_callback_state(caller, callee)?,
            CallbackKind::TaskWork => {
                let (mp, uid) = (caller.regs[3].aux, caller.regs[3].map_uid);
                r[1] = RegState::ptr(CONST_PTR_TO_MAP, mp);
                r[1].map_uid = uid;
                r[2] = RegState::ptr(PTR_TO_MAP_KEY, mp);
                r[2].map_uid = uid;
                r[3] = RegState::ptr(PTR_TO_MAP_VALUE, mp);
                r[3].map_uid = uid;
                self.id_gen += 1;
                r[3].id = self.id_gen;
                r[4] = RegState::not_init();
                r[5] = RegState::not_init();
                callee.in_async_callback_fn = true;
                callee.callback_ret_range = RetvalRange::new(i32::MIN, i32::MAX);
            }
            CallbackKind::UserRingbuf => {
                r[0] = RegState::not_init();
                self.id_gen += 1;
                r[1] = super::kfuncs::dynptr_cb_reg(super::kfuncs::dynptr::LOCAL, self.id_gen);
                r[2] = caller.regs[3];
                r[3] = RegState::not_init();
                r[4] = RegState::not_init();
                r[5] = RegState::not_init();
                callee.in_callback_fn = true;
                callee.callback_ret_range = RetvalRange::new(0, 1);
            }
        }
        Ok(())
    }

    /// `push_callback_call`: queue the callback's first insn in a new
    /// frame (or, for an async callback, in a state of its own) and go on
    /// after the call.
    pub(crate) fn push_callback_call(&mut self, insn: &Insn, insn_idx: usize, subprog: usize, kind: CallbackKind) -> VResult<()> {
        let err = self.btf_check_subprog_call(subprog);
        if let Err(DoCheckError::Errno(EFAULT)) = err {
            return errno(EFAULT);
        }
        if let Some(sp) = self.subprogs.get_mut(subprog) {
            sp.is_cb = true;
        }
        let is_async = (insn.src == 0 && helpers::is_async_callback_calling_function(insn.imm))
            || (insn.src == BPF_PSEUDO_KFUNC_CALL
                && insn.off == 0
                && super::kfuncs::kfunc_name(self, insn.imm).is_some_and(super::kfuncs::is_async_callback_calling_kfunc));
        if is_async {
            if let Some(sp) = self.subprogs.get_mut(subprog) {
                sp.is_async_cb = true;
            }
            let start = self.subprog_start(subprog);
            let log_pos = self.log.end_pos();
            let diag_log_pos = self.diag_log_save();
            let mut st = VerifierState::new();
            // is_async_cb_sleepable: timer callbacks never sleep, workqueue
            // and task_work callbacks always may
            st.in_sleepable = insn.src == BPF_PSEUDO_KFUNC_CALL;
            st.frame[0] = self.init_func_state(-1, 0, subprog);
            self.scratch.mark_all();
            let caller = self.cur.cur().clone();
            let mut callee = st.frame[0].clone();
            callee.async_entry_cnt = caller.async_entry_cnt + 1;
            self.set_callee_state(kind, &caller, &mut callee, insn_idx)?;
            st.frame[0] = callee;
            self.stack.push(StackElem { st, insn_idx: start, prev_insn_idx: insn_idx as i64, log_pos, diag_log_pos });
            if self.stack.len() > BPF_COMPLEXITY_LIMIT_JMP_SEQ {
                let s = format!("The sequence of {} jumps is too complex for async cb.\n", self.stack.len());
                self.verbose(&s);
                return errno(E2BIG);
            }
            return Ok(());
        }
        let start = self.subprog_start(subprog);
        let bi = self.push_stack(start, insn_idx, false)?;
        self.setup_func_entry(subprog, insn_idx, kind, Some(bi))?;
        let st = &mut self.stack[bi].st;
        st.callback_unroll_depth += 1;
        let n = st.frame.len();
        st.frame[n - 2].callback_depth += 1;
        self.cur.cur_mut().callback_depth = 0;
        Ok(())
    }

    /// `prepare_func_exit`: leave the current frame (`insn_idx` is set to
    /// where the caller continues).
    pub(crate) fn prepare_func_exit(&mut self) -> VResult<()> {
        let cf = self.cur.curframe();
        let r0 = self.cur.frame[cf].regs[0];
        if r0.typ == PTR_TO_STACK {
            self.verbose("cannot return stack pointer to the caller\n");
            return errno(EINVAL);
        }
        let in_callback_fn = self.cur.frame[cf].in_callback_fn;
        let callsite = self.cur.frame[cf].callsite.max(0) as usize;
        if in_callback_fn {
            if r0.typ != SCALAR_VALUE {
                self.verbose("R0 not a scalar value\n");
                return errno(EACCES);
            }
            self.mark_chain_precision(0)?;
            let range = self.cur.frame[cf].callback_ret_range;
            let r0 = self.cur.frame[cf].regs[0];
            if !retval_range_within(range, &r0) {
                self.verbose_invalid_scalar(&r0, range, "At callback return", "R0");
                return errno(EINVAL);
            }
            if !self.calls_callback(callsite) {
                let s = format!("verifier bug: in callback at {}, callsite {callsite} !calls_callback\n", self.insn_idx);
                self.verbose(&s);
                return errno(EFAULT);
            }
        } else {
            // whatever r0 had in the callee
            let (t0, origin) = (self.diag_reg_target(cf - 1, 0), self.diag_reg_target(cf, 0));
            self.diag_mod_begin(t0, Some(origin), ModReason::Write);
            self.cur.frame[cf - 1].regs[0] = r0;
            self.diag_mod_end();
        }
        self.insn_idx = if in_callback_fn { callsite } else { callsite + 1 };
        if self.level() & BPF_LOG_LEVEL != 0 {
            self.verbose("returning from callee:\n");
            self.print_state_frame(cf);
            let s = format!("to caller at {}:\n", self.insn_idx);
            self.verbose(&s);
            self.print_state_frame(cf - 1);
        }
        self.account_processed_insns(cf);
        self.cur.frame.pop();
        if in_callback_fn {
            let idx = self.insn_idx;
            if let Some(prev) = self.find_prev_entry(&self.cur, idx) {
                let cap = self.bpf_capable();
                super::states::widen_imprecise_scalars(&self.checkpoints[prev].state, &mut self.cur, cap);
            }
        }
        Ok(())
    }

    /// `process_bpf_exit_full`: `exit`, or a throw.
    pub(crate) fn process_bpf_exit_full(&mut self, exception_exit: bool) -> VResult<Next> {
        let check_lock = exception_exit || self.cur.curframe() == 0;
        let prefix = if exception_exit { "bpf_throw" } else { "BPF_EXIT instruction in main prog" };
        self.check_resource_leak(exception_exit, check_lock, prefix)?;
        if exception_exit {
            return Ok(Next::Exit);
        }
        if self.cur.curframe() > 0 {
            self.prepare_func_exit()?;
            return Ok(Next::UpdatedPrint);
        }
        let f = self.cur.cur();
        if f.subprogno != 0 && !f.in_async_callback_fn && !f.in_exception_callback_fn {
            self.check_global_subprog_return_code()?;
        } else {
            self.check_return_code(0)?;
        }
        Ok(Next::Exit)
    }

    /// `check_global_subprog_return_code`.
    fn check_global_subprog_return_code(&mut self) -> VResult<()> {
        let sp = self.cur.cur().subprogno;
        let returns_void = self.input.subprogs.get(sp).is_some_and(|s| s.returns_void);
        if returns_void {
            return Ok(());
        }
        self.check_reg_src(0)?;
        let r0 = self.regs()[0];
        // pointers to the arena pass between subprograms
        if r0.typ == PTR_TO_ARENA {
            return Ok(());
        }
        if r0.typ != SCALAR_VALUE {
            self.verbose(&format!("At subprogram exit the register R0 is not a scalar value ({})\n", reg_type_str(r0.typ)));
            return errno(EINVAL);
        }
        Ok(())
    }
}

/// Which `set_*_callback_state` a callback entry uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CallbackKind {
    /// `set_callee_state`: a plain bpf-to-bpf call.
    Plain,
    Loop,
    MapElem,
    Timer,
    /// `set_task_work_schedule_callback_state`.
    TaskWork,
    /// `set_rbtree_add_callback_state`.
    RbtreeAdd,
    FindVma,
    UserRingbuf,
}

/// `retval_range_within`.
pub(crate) fn retval_range_within(range: RetvalRange, reg: &RegState) -> bool {
    if range.return_32bit {
        range.minval <= reg.s.s32_min() && reg.s.s32_max() <= range.maxval
    } else {
        range.minval as i64 <= reg.s.smin() && reg.s.smax() <= range.maxval as i64
    }
}

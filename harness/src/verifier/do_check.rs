//! The main pass: `do_check_main`, `do_check_common`, `do_check` and
//! `do_check_insn` of `kernel/bpf/verifier.c` (Linux 7.3).
//!
//! The front end (`bpf_check`'s earlier phases) hands over a
//! [`DoCheckInput`]: the program after its rewrites, the per-insn facts it
//! computed ([`InsnInfo`]: prune and jump points, live registers, SCCs, map
//! loads), stack liveness ([`StackLiveness`]) and the loader's privileges.
//! The log goes through [`VLog`], which the front end's log buffer
//! implements (the main pass rewinds it: `bpf_vlog_reset`).
//!
//! Calls (helpers, kfuncs, bpf-to-bpf) are not modelled here yet: reaching
//! one ends the pass with [`DoCheckError::Unsupported`].
//!
//! The other parts of the pass live in modules named after the kernel's
//! concepts: [`super::alu`] (`check_alu_op`), [`super::mem`]
//! (`check_mem_access`), [`super::stack`], [`super::ctx`], [`super::jmp`]
//! (`check_cond_jmp_op`), [`super::states`] (pruning), [`super::backtrack`]
//! (precision), [`super::retcode`], [`super::print`].

use std::fmt::Write;

use bpf_isa::Insn;
use bpf_isa::insn::op::{self, *};

use super::print::{Scratch, print_verifier_state};
use super::reg::*;
use super::state::*;

/// `BPF_COMPLEXITY_LIMIT_INSNS`.
pub const BPF_COMPLEXITY_LIMIT_INSNS: u32 = 1_000_000;
/// `BPF_COMPLEXITY_LIMIT_JMP_SEQ`.
pub const BPF_COMPLEXITY_LIMIT_JMP_SEQ: usize = 8192;
/// `BPF_MAX_VAR_OFF`.
pub const BPF_MAX_VAR_OFF: i64 = 1 << 29;

pub const BPF_LOG_LEVEL1: u32 = 1;
pub const BPF_LOG_LEVEL2: u32 = 2;
pub const BPF_LOG_LEVEL: u32 = 3;

pub const EPERM: i32 = 1;
pub const ENOENT: i32 = 2;
pub const E2BIG: i32 = 7;
pub const EACCES: i32 = 13;
pub const EFAULT: i32 = 14;
pub const EINVAL: i32 = 22;
pub const ENOTSUPP: i32 = 524;

/// The verifier log as the main pass uses it (`struct bpf_verifier_log`).
pub trait VLog {
    fn level(&self) -> u32;
    /// `verbose()`: append formatted text.
    fn vlog(&mut self, s: &str);
    /// `log->end_pos`: bytes written so far (logically).
    fn end_pos(&self) -> u64;
    /// `bpf_vlog_reset`: forget everything after `pos`.
    fn reset(&mut self, pos: u64);
}

/// A log that keeps everything in a string (no size limit): for callers
/// without the front end's buffer.
#[derive(Clone, Debug, Default)]
pub struct StringLog {
    pub level: u32,
    pub text: String,
}

impl VLog for StringLog {
    fn level(&self) -> u32 {
        self.level
    }
    fn vlog(&mut self, s: &str) {
        if self.level != 0 {
            self.text.push_str(s);
        }
    }
    fn end_pos(&self) -> u64 {
        self.text.len() as u64
    }
    fn reset(&mut self, pos: u64) {
        let mut p = (pos as usize).min(self.text.len());
        while !self.text.is_char_boundary(p) {
            p -= 1;
        }
        self.text.truncate(p);
    }
}

/// A map the program uses, as the verifier sees `struct bpf_map`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapInfo {
    pub name: String,
    pub map_type: u32,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub map_flags: u32,
}

/// What the front end knows about one insn (`struct bpf_insn_aux_data`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InsnInfo {
    pub prune_point: bool,
    pub jmp_point: bool,
    pub force_checkpoint: bool,
    pub live_regs_before: u16,
    pub scc: u32,
    /// `ld_imm64` of a map (`BPF_PSEUDO_MAP_FD`/`_IDX`) or of a map value
    /// (`BPF_PSEUDO_MAP_VALUE`/`_IDX_VALUE`): index into
    /// [`DoCheckInput::maps`] and, for values, the offset.
    pub map_index: Option<usize>,
    pub map_off: u32,
}

/// Where the stack-liveness query stands (`bpf_live_stack_query_init`).
#[derive(Clone, Debug)]
pub struct LiveQuery {
    /// The insn of the innermost frame.
    pub insn_idx: usize,
    /// Call sites of frames 1.. (the call insn that made each).
    pub callsites: Vec<usize>,
}

/// `bpf_stack_slot_alive`: whether 4-byte half slot `half_spi` of frame
/// `frameno` may be read later.
pub trait StackLiveness {
    fn stack_slot_alive(&self, q: &LiveQuery, frameno: usize, half_spi: usize) -> bool;
}

/// Everything alive (no liveness information).
pub struct AllAlive;

impl StackLiveness for AllAlive {
    fn stack_slot_alive(&self, _: &LiveQuery, _: usize, _: usize) -> bool {
        true
    }
}

/// The loader's privileges as `bpf_check` derives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Privs {
    pub bpf_capable: bool,
    pub allow_ptr_leaks: bool,
    pub allow_uninit_stack: bool,
    pub bypass_spec_v1: bool,
    pub bypass_spec_v4: bool,
}

impl Privs {
    pub const ROOT: Privs = Privs { bpf_capable: true, allow_ptr_leaks: true, allow_uninit_stack: true, bypass_spec_v1: true, bypass_spec_v4: true };
    pub const UNPRIV: Privs = Privs { bpf_capable: false, allow_ptr_leaks: false, allow_uninit_stack: false, bypass_spec_v1: false, bypass_spec_v4: false };
}

/// The main pass's input.
pub struct DoCheckInput<'a> {
    /// The program after the front end's rewrites (const-folded branches).
    pub insns: &'a [Insn],
    pub info: &'a [InsnInfo],
    pub prog_type: u32,
    pub expected_attach_type: u32,
    pub privs: Privs,
    pub strict_alignment: bool,
    pub test_state_freq: bool,
    pub test_reg_invariants: bool,
    pub maps: &'a [MapInfo],
    pub liveness: &'a dyn StackLiveness,
    /// `sizeof(struct pt_regs)` of the target arch (kprobe ctx).
    pub pt_regs_size: i64,
}

/// Why the pass stopped without accepting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DoCheckError {
    /// The kernel rejects the program with this (positive) errno.
    Errno(i32),
    /// The model cannot decide: something not modelled yet was reached.
    Unsupported(String),
}

pub type VResult<T> = Result<T, DoCheckError>;

pub(crate) fn errno<T>(e: i32) -> VResult<T> {
    Err(DoCheckError::Errno(e))
}

/// The statistics `print_verification_stats` reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub insn_processed: u32,
    pub max_states_per_insn: u32,
    pub total_states: u32,
    pub peak_states: u32,
    pub longest_mark_read_walk: u32,
}

/// The main pass's result.
#[derive(Clone, Debug)]
pub struct DoCheckOutcome {
    pub result: VResult<()>,
    pub stats: Stats,
    /// `subprog_info[0].stack_depth`.
    pub stack_depth: u32,
}

/// What `do_check_insn` tells the loop.
pub(crate) enum Next {
    /// Go on at the next insn.
    Fallthrough,
    /// `insn_idx` was set.
    Updated,
    /// The path ended (`exit`).
    Exit,
}

/// A pushed branch (`struct bpf_verifier_stack_elem`).
pub(crate) struct StackElem {
    pub st: VerifierState,
    pub insn_idx: usize,
    pub prev_insn_idx: i64,
    pub log_pos: u64,
}

/// A stored checkpoint (`struct bpf_verifier_state_list`).
pub(crate) struct Checkpoint {
    pub state: VerifierState,
    pub miss_cnt: u32,
    pub hit_cnt: u32,
    pub in_free_list: bool,
    /// Still in `explored_states` or the free list (not freed).
    pub listed: bool,
}

/// `struct bpf_verifier_env`: the main pass's part.
pub struct Env<'a, 'l> {
    pub(crate) input: &'a DoCheckInput<'a>,
    pub(crate) log: &'l mut dyn VLog,
    pub(crate) cur: VerifierState,
    pub(crate) stack: Vec<StackElem>,
    pub(crate) checkpoints: Vec<Checkpoint>,
    /// `explored_states`, per insn, newest first.
    pub(crate) explored: Vec<Vec<usize>>,
    pub(crate) free_list_size: u32,
    pub(crate) explored_states_size: u32,
    pub(crate) num_backedges: u32,
    pub(crate) scc: super::states::SccState,
    pub(crate) id_gen: u32,
    pub(crate) insn_idx: usize,
    pub(crate) prev_insn_idx: i64,
    pub(crate) jmps_processed: u32,
    pub(crate) prev_jmps_processed: u32,
    pub(crate) prev_insn_processed: u32,
    pub(crate) stats: Stats,
    pub(crate) scratch: Scratch,
    pub(crate) prev_log_pos: u64,
    pub(crate) prev_insn_print_pos: u64,
    /// `env->cur_hist_ent`: the history entry of the current insn.
    pub(crate) cur_hist_ent: Option<usize>,
    pub(crate) stack_depth: u32,
    pub(crate) bt: super::backtrack::BacktrackState,
}

/// `do_check_main`: verifies the main program from insn 0 with `R1 = ctx`.
pub fn do_check_main(input: &DoCheckInput<'_>, log: &mut dyn VLog) -> DoCheckOutcome {
    let n = input.insns.len();
    let mut env = Env {
        input,
        log,
        cur: VerifierState::new(),
        stack: Vec::new(),
        checkpoints: Vec::new(),
        explored: vec![Vec::new(); n],
        free_list_size: 0,
        explored_states_size: 0,
        num_backedges: 0,
        scc: Default::default(),
        id_gen: 0,
        insn_idx: 0,
        prev_insn_idx: -1,
        jmps_processed: 0,
        prev_jmps_processed: 0,
        prev_insn_processed: 0,
        stats: Stats::default(),
        scratch: Scratch::default(),
        prev_log_pos: 0,
        prev_insn_print_pos: 0,
        cur_hist_ent: None,
        stack_depth: 0,
        bt: Default::default(),
    };
    let result = env.do_check_common();
    DoCheckOutcome { result, stats: env.stats, stack_depth: env.stack_depth }
}

impl<'a, 'l> Env<'a, 'l> {
    pub(crate) fn verbose(&mut self, s: &str) {
        self.log.vlog(s);
    }

    pub(crate) fn level(&self) -> u32 {
        self.log.level()
    }

    pub(crate) fn insn(&self, idx: usize) -> Insn {
        self.input.insns.get(idx).copied().unwrap_or_default()
    }

    pub(crate) fn info(&self, idx: usize) -> InsnInfo {
        self.input.info.get(idx).copied().unwrap_or_default()
    }

    pub(crate) fn bpf_capable(&self) -> bool {
        self.input.privs.bpf_capable
    }

    pub(crate) fn allow_ptr_leaks(&self) -> bool {
        self.input.privs.allow_ptr_leaks
    }

    /// `bpf_verbose_insn`: the disasm.c text of an insn.
    pub(crate) fn insn_text(&self, idx: usize) -> String {
        let kf = |_: i32, _: i16| -> Option<String> { None };
        let cbs = bpf_isa::disasm::VerifierCallbacks { kfunc_name: &kf };
        let insn = self.insn(idx);
        bpf_isa::disasm::print_bpf_insn(&cbs, &insn, self.input.insns.get(idx + 1), self.allow_ptr_leaks())
    }

    pub(crate) fn regs(&self) -> &[RegState; MAX_BPF_REG] {
        &self.cur.cur().regs
    }

    pub(crate) fn regs_mut(&mut self) -> &mut [RegState; MAX_BPF_REG] {
        &mut self.cur.cur_mut().regs
    }

    /// `mark_reg_unknown` on a register of the current frame.
    pub(crate) fn mark_reg_unknown(&mut self, regno: usize) {
        let cap = self.bpf_capable();
        if let Some(r) = self.regs_mut().get_mut(regno) {
            *r = RegState::unknown(cap);
        }
    }

    /// `__mark_reg_unknown` on any register state.
    pub(crate) fn unknown_reg(&self) -> RegState {
        RegState::unknown(self.bpf_capable())
    }

    /// `__mark_reg_const_zero`: a precise-if-unprivileged zero scalar.
    pub(crate) fn const_zero_reg(&self) -> RegState {
        let mut r = RegState::known(0);
        r.precise = !self.bpf_capable();
        r
    }

    pub(crate) fn mark_reg_scratched(&mut self, regno: usize) {
        self.scratch.mark_reg(regno);
    }

    pub(crate) fn mark_stack_slot_scratched(&mut self, spi: usize) {
        self.scratch.mark_slot(spi);
    }

    /// `print_verifier_state` of the current state.
    pub(crate) fn print_cur_state(&mut self, print_all: bool) {
        let mut s = String::new();
        let f = self.cur.curframe();
        print_verifier_state(&mut s, &self.cur, f, print_all, &self.scratch, self.input.maps);
        self.verbose(&s);
        if !print_all {
            self.scratch.clear();
        }
    }

    /// `print_insn_state`: the registers an insn changed, as a `;` comment
    /// on its line when nothing was printed after it, else on a line of
    /// their own.
    pub(crate) fn print_insn_state(&mut self) {
        if self.prev_log_pos != 0 && self.prev_log_pos == self.log.end_pos() {
            self.log.reset(self.prev_log_pos - 1);
            let pad = super::print::vlog_alignment(self.prev_insn_print_pos);
            let s = format!("{:pad$};", ' ', pad = pad.max(1));
            self.verbose(&s);
        } else {
            let s = format!("{}:", self.insn_idx);
            self.verbose(&s);
        }
        self.print_cur_state(false);
    }

    /// `check_reg_arg(..., SRC_OP)`.
    pub(crate) fn check_reg_src(&mut self, regno: usize) -> VResult<()> {
        self.mark_reg_scratched(regno);
        if regno >= MAX_BPF_REG {
            return errno(EINVAL);
        }
        if self.regs()[regno].typ == NOT_INIT {
            self.verbose(&format!("R{regno} !read_ok\n"));
            return errno(EACCES);
        }
        Ok(())
    }

    /// `check_reg_arg(..., DST_OP / DST_OP_NO_MARK)`.
    pub(crate) fn check_reg_dst(&mut self, regno: usize, mark: bool) -> VResult<()> {
        self.mark_reg_scratched(regno);
        if regno >= MAX_BPF_REG {
            return errno(EINVAL);
        }
        if regno == BPF_REG_FP {
            self.verbose("frame pointer is read only\n");
            return errno(EACCES);
        }
        if mark {
            self.mark_reg_unknown(regno);
        }
        Ok(())
    }

    /// `is_pointer_value`: a pointer the loader may not see.
    pub(crate) fn is_pointer_value(&self, regno: usize) -> bool {
        !self.allow_ptr_leaks() && self.regs().get(regno).is_some_and(|r| r.is_pointer())
    }

    /// `push_stack`: queue the current state to continue at `insn_idx`.
    pub(crate) fn push_stack(&mut self, insn_idx: usize, prev_insn_idx: usize, speculative: bool) -> VResult<usize> {
        let mut st = self.cur.clone();
        st.speculative |= speculative;
        let log_pos = self.log.end_pos();
        if let Some(p) = st.parent
            && let Some(c) = self.checkpoints.get_mut(p)
        {
            c.state.branches += 1;
        }
        self.stack.push(StackElem { st, insn_idx, prev_insn_idx: prev_insn_idx as i64, log_pos });
        if self.stack.len() > BPF_COMPLEXITY_LIMIT_JMP_SEQ {
            let s = format!("The sequence of {} jumps is too complex.\n", self.stack.len());
            self.verbose(&s);
            return errno(E2BIG);
        }
        Ok(self.stack.len() - 1)
    }

    /// `pop_stack`: continue with the newest queued branch.
    fn pop_stack(&mut self, prev_insn_idx: &mut i64, pop_log: bool) -> bool {
        let Some(head) = self.stack.pop() else { return false };
        self.cur = head.st;
        if pop_log {
            self.log.reset(head.log_pos);
        }
        self.insn_idx = head.insn_idx;
        *prev_insn_idx = head.prev_insn_idx;
        true
    }

    /// `bpf_push_jmp_history`.
    pub(crate) fn push_jmp_history(&mut self, flags: u32, spi: usize, frame: usize, linked_regs: u64) {
        if let Some(i) = self.cur_hist_ent
            && let Some(e) = self.cur.jmp_history.get_mut(i)
        {
            e.flags |= flags;
            e.spi = spi as u8;
            e.frame = frame as u8;
            e.linked_regs = linked_regs;
            return;
        }
        self.cur.jmp_history.push(JmpHistEntry {
            idx: self.insn_idx as u32,
            prev_idx: self.prev_insn_idx as u32,
            flags,
            spi: spi as u8,
            frame: frame as u8,
            linked_regs,
        });
        self.cur_hist_ent = Some(self.cur.jmp_history.len() - 1);
    }

    /// `do_check_common` for the main program.
    fn do_check_common(&mut self) -> VResult<()> {
        let pop_log = self.level() & BPF_LOG_LEVEL2 == 0;
        let mut st = VerifierState::new();
        st.frame[0].regs[1] = RegState::ptr(PTR_TO_CTX, 0);
        st.first_insn_idx = 0;
        st.last_insn_idx = -1;
        self.cur = st;
        // init_func_state scratches everything: the first insn prints the whole state
        self.scratch.mark_all();
        let ret = self.do_check();
        if ret.is_ok() && pop_log {
            self.log.reset(0);
        }
        ret
    }

    /// `do_check`: the loop over insns and queued branches.
    fn do_check(&mut self) -> VResult<()> {
        let pop_log = self.level() & BPF_LOG_LEVEL2 == 0;
        let insn_cnt = self.input.insns.len();
        let mut do_print_state = false;
        let mut prev_insn_idx: i64 = -1;
        loop {
            self.cur_hist_ent = None;
            self.prev_insn_idx = prev_insn_idx;
            if self.insn_idx >= insn_cnt {
                let s = format!("invalid insn idx {} insn_cnt {}\n", self.insn_idx, insn_cnt);
                self.verbose(&s);
                return errno(EFAULT);
            }
            self.stats.insn_processed += 1;
            if self.stats.insn_processed > BPF_COMPLEXITY_LIMIT_INSNS {
                let s = format!("BPF program is too large. Processed {} insn\n", self.stats.insn_processed);
                self.verbose(&s);
                return errno(E2BIG);
            }
            self.cur.last_insn_idx = self.prev_insn_idx;
            self.cur.insn_idx = self.insn_idx;

            let mut exit_path = false;
            if self.info(self.insn_idx).prune_point {
                if self.is_state_visited(self.insn_idx)? {
                    if self.level() & BPF_LOG_LEVEL != 0 {
                        let spec = if self.cur.speculative { " (speculative execution)" } else { "" };
                        let s = if do_print_state {
                            format!("\nfrom {} to {}{}: safe\n", self.prev_insn_idx, self.insn_idx, spec)
                        } else {
                            format!("{}: safe\n", self.insn_idx)
                        };
                        self.verbose(&s);
                    }
                    exit_path = true;
                }
            }
            if !exit_path {
                if self.info(self.insn_idx).jmp_point {
                    self.push_jmp_history(0, 0, 0, 0);
                }
                if self.level() & BPF_LOG_LEVEL2 != 0 && do_print_state {
                    let spec = if self.cur.speculative { " (speculative execution)" } else { "" };
                    let s = format!("\nfrom {} to {}{}:", self.prev_insn_idx, self.insn_idx, spec);
                    self.verbose(&s);
                    self.print_cur_state(true);
                    do_print_state = false;
                }
                if self.level() & BPF_LOG_LEVEL != 0 {
                    if self.scratch.any() {
                        self.print_insn_state();
                    }
                    self.prev_log_pos = self.log.end_pos();
                    let s = format!("{}: {}\n", self.insn_idx, self.insn_text(self.insn_idx));
                    self.verbose(&s);
                    self.prev_insn_print_pos = self.log.end_pos() - self.prev_log_pos;
                    self.prev_log_pos = self.log.end_pos();
                }
                prev_insn_idx = self.insn_idx as i64;
                match self.do_check_insn()? {
                    Next::Fallthrough => self.insn_idx += 1,
                    Next::Updated => {}
                    Next::Exit => exit_path = true,
                }
            }
            if exit_path {
                self.scratch.mark_all();
                self.update_branch_counts_cur()?;
                if !self.pop_stack(&mut prev_insn_idx, pop_log) {
                    break;
                }
                do_print_state = true;
            }
        }
        Ok(())
    }

    /// `do_check_insn`.
    fn do_check_insn(&mut self) -> VResult<Next> {
        let insn = self.insn(self.insn_idx);
        match insn.class() {
            BPF_ALU | BPF_ALU64 => {
                self.check_alu_op(&insn)?;
                Ok(Next::Fallthrough)
            }
            BPF_LDX => {
                self.check_load_mem(&insn, insn.mode() == BPF_MEMSX)?;
                Ok(Next::Fallthrough)
            }
            BPF_STX => {
                if insn.mode() == BPF_ATOMIC {
                    self.check_atomic(&insn)?;
                } else {
                    self.check_store_reg(&insn)?;
                }
                Ok(Next::Fallthrough)
            }
            BPF_ST => {
                let dst = insn.dst as usize;
                self.check_reg_src(dst)?;
                self.check_mem_access_insn(dst, insn.off as i64, insn.size(), true, None, false)?;
                Ok(Next::Fallthrough)
            }
            BPF_JMP | BPF_JMP32 => {
                let opcode = insn.opcode();
                self.jmps_processed += 1;
                if opcode == BPF_CALL {
                    self.mark_reg_scratched(0);
                    return Err(DoCheckError::Unsupported("calls are not modelled yet".into()));
                }
                if opcode == BPF_JA {
                    if insn.is_src_x() {
                        return Err(DoCheckError::Unsupported("gotox is not modelled yet".into()));
                    }
                    let off = if insn.class() == BPF_JMP { insn.off as i64 } else { insn.imm as i64 };
                    let t = self.insn_idx as i64 + off + 1;
                    if t < 0 {
                        return errno(EFAULT);
                    }
                    self.insn_idx = t as usize;
                    return Ok(Next::Updated);
                }
                if opcode == BPF_EXIT {
                    return self.process_bpf_exit();
                }
                if insn.code == BPF_JMP | BPF_JCOND {
                    return Err(DoCheckError::Unsupported("may_goto is not modelled yet".into()));
                }
                self.check_cond_jmp_op(&insn)
            }
            _ => {
                // BPF_LD
                let mode = insn.mode();
                if mode == BPF_ABS || mode == BPF_IND {
                    return Err(DoCheckError::Unsupported("LD_ABS/LD_IND are not modelled yet".into()));
                }
                if mode == BPF_IMM {
                    self.check_ld_imm(&insn)?;
                    self.insn_idx += 1;
                    return Ok(Next::Fallthrough);
                }
                errno(EINVAL)
            }
        }
    }

    /// `check_ld_imm`.
    fn check_ld_imm(&mut self, insn: &Insn) -> VResult<()> {
        let dst = insn.dst as usize;
        if insn.size() != BPF_DW {
            self.verbose("invalid BPF_LD_IMM insn\n");
            return errno(EINVAL);
        }
        self.check_reg_dst(dst, true)?;
        let next = self.insn(self.insn_idx + 1);
        if insn.src == 0 {
            let imm = (insn.imm as u32 as u64) | ((next.imm as u32 as u64) << 32);
            let mut r = RegState::known(imm);
            r.precise = !self.bpf_capable();
            self.regs_mut()[dst] = r;
            return Ok(());
        }
        let info = self.info(self.insn_idx);
        match (insn.src, info.map_index) {
            (BPF_PSEUDO_MAP_FD | BPF_PSEUDO_MAP_IDX, Some(m)) => {
                self.regs_mut()[dst] = RegState::ptr(CONST_PTR_TO_MAP, m as i64);
                Ok(())
            }
            (BPF_PSEUDO_MAP_VALUE | BPF_PSEUDO_MAP_IDX_VALUE, Some(m)) => {
                let mut r = RegState::ptr(PTR_TO_MAP_VALUE, m as i64);
                r.s = super::scalar::Scalar::known(info.map_off as u64);
                self.regs_mut()[dst] = r;
                Ok(())
            }
            _ => Err(DoCheckError::Unsupported(format!("ld_imm64 with src_reg {} is not modelled yet", insn.src))),
        }
    }

    /// `process_bpf_exit_full` for the main frame (no callers yet).
    fn process_bpf_exit(&mut self) -> VResult<Next> {
        if self.cur.curframe() != 0 {
            return Err(DoCheckError::Unsupported("returns from subprograms are not modelled yet".into()));
        }
        self.check_return_code(0)?;
        Ok(Next::Exit)
    }

    /// `account_current_path` + `bpf_update_branch_counts` for the path
    /// that just ended.
    fn update_branch_counts_cur(&mut self) -> VResult<()> {
        self.cur.branches = self.cur.branches.saturating_sub(1);
        if self.cur.branches > 0 {
            return Ok(());
        }
        let mut p = self.cur.parent;
        while let Some(i) = p {
            let Some(c) = self.checkpoints.get_mut(i) else { break };
            c.state.branches = c.state.branches.saturating_sub(1);
            if c.state.branches > 0 {
                break;
            }
            self.maybe_exit_scc(i)?;
            p = self.checkpoints[i].state.parent;
        }
        Ok(())
    }
}

/// Printing helpers used across the pass.
pub(crate) fn fmt_reg_mask(mask: u32) -> String {
    let mut s = String::new();
    for i in 0..32 {
        if mask & (1 << i) != 0 {
            if !s.is_empty() {
                s.push(',');
            }
            let _ = write!(s, "r{i}");
        }
    }
    s
}

pub(crate) fn fmt_stack_mask(mask: u64) -> String {
    let mut s = String::new();
    for i in 0..64 {
        if mask & (1 << i) != 0 {
            if !s.is_empty() {
                s.push(',');
            }
            let _ = write!(s, "{}", -(i as i64 + 1) * 8);
        }
    }
    s
}

/// Field accessors of [`Insn`] the pass uses.
pub(crate) trait InsnExt {
    fn mode(&self) -> u8;
    fn size(&self) -> u8;
    fn opcode(&self) -> u8;
    fn is_src_x(&self) -> bool;
}

impl InsnExt for Insn {
    fn mode(&self) -> u8 {
        op::mode(self.code)
    }
    fn size(&self) -> u8 {
        op::size(self.code)
    }
    fn opcode(&self) -> u8 {
        op::op(self.code)
    }
    fn is_src_x(&self) -> bool {
        op::src(self.code) == BPF_X
    }
}

/// `bpf_size_to_bytes`.
pub(crate) fn size_to_bytes(size: u8) -> i64 {
    match size {
        BPF_B => 1,
        BPF_H => 2,
        BPF_W => 4,
        _ => 8,
    }
}

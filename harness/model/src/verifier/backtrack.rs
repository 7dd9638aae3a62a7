//! Precision tracking (`kernel/bpf/backtrack.c`): `bpf_mark_chain_precision`
//! walks the jump history of the current state and of its checkpoints
//! backwards, from a scalar whose exact value mattered to where it came
//! from, and marks it precise in the checkpoints (the `mark_precise:` lines
//! of a level-2 log).

use bpf_isa::insn::Insn;
use bpf_isa::insn::op::*;

use super::do_check::*;
use super::reg::*;
use super::scalar::print::push_u64;
use super::state::*;

/// `struct backtrack_state`.
#[derive(Clone, Debug, Default)]
pub struct BacktrackState {
    pub frame: usize,
    pub reg_masks: [u32; 16],
    pub stack_masks: [u64; 16],
    /// The last whole-state walk, to replay (not part of the kernel's
    /// struct; survives `bt_reset`).
    memo: HistoryMemo,
    /// Whether the log is at level 2, asked once (it stays so for a load).
    log_level2: Option<bool>,
    /// `bt_insn_noop_unless` of each insn of the program, made once.
    noop_unless: Vec<u32>,
}

/// The shortest walk worth remembering.
const MEMO_MIN_STEPS: u64 = 16;

/// The masks of a `BacktrackState`, as a value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct BtMasks {
    frame: usize,
    reg_masks: [u32; 16],
    stack_masks: [u64; 16],
}

/// A walk through one state's history that reached the state's first insn,
/// remembered from where it stood after its first step. Without a level-2
/// log a walk is a pure function of where it stands (insn, history entries
/// left and their contents, the insn backtracked before, the masks): a
/// later walk that arrives at the same point ends the same way. This is
/// what makes a loop the verifier walks linear rather than quadratic: each
/// iteration's walk back through the state's growing history (up to 40
/// back-edges) arrives where the previous iteration's walk started.
#[derive(Clone, Debug, Default)]
struct HistoryMemo {
    valid: bool,
    i: i64,
    subseq_idx: i64,
    cur_first: i64,
    masks: BtMasks,
    /// The history entries left then (`hist[..history]`).
    prefix: Vec<JmpHistEntry>,
    /// How it ended: the masks and `subseq_idx` at the state's first insn,
    /// and the insns it visited (for the guard).
    end_masks: BtMasks,
    end_subseq_idx: i64,
    steps: u64,
}

impl HistoryMemo {
    /// Does the remembered walk pass where this one stands?
    #[inline]
    fn matches(&self, i: i64, history: usize, subseq_idx: i64, cur_first: i64, bt: &BacktrackState, hist: &[JmpHistEntry]) -> bool {
        self.valid
            && self.i == i
            && self.prefix.len() == history
            && self.subseq_idx == subseq_idx
            && self.cur_first == cur_first
            && self.masks.frame == bt.frame
            && self.masks.reg_masks == bt.reg_masks
            && self.masks.stack_masks == bt.stack_masks
            && self.prefix[..] == hist[..history]
    }
}

impl BacktrackState {
    fn masks(&self) -> BtMasks {
        BtMasks { frame: self.frame, reg_masks: self.reg_masks, stack_masks: self.stack_masks }
    }
    fn set_masks(&mut self, m: &BtMasks) {
        self.frame = m.frame;
        self.reg_masks = m.reg_masks;
        self.stack_masks = m.stack_masks;
    }
    /// `bt_empty`: nothing left to backtrack in any frame up to `frame`.
    #[inline]
    fn empty(&self) -> bool {
        // most walks are in the main program's frame
        if self.frame == 0 {
            return self.reg_masks[0] == 0 && self.stack_masks[0] == 0;
        }
        let mut any = 0u64;
        for f in 0..=self.frame.min(15) {
            any |= self.reg_masks[f] as u64 | self.stack_masks[f];
        }
        any == 0
    }
    fn reg_set(&self, r: usize) -> bool {
        self.reg_masks[self.frame & 15] & (1 << r) != 0
    }
    fn set_reg(&mut self, r: usize) {
        self.reg_masks[self.frame & 15] |= 1 << r;
    }
    fn reg_mask(&self) -> u32 {
        self.reg_masks[self.frame & 15]
    }
    fn stack_mask(&self) -> u64 {
        self.stack_masks[self.frame & 15]
    }
    /// `bt_subprog_enter`: backtracking moves into a callee's frame.
    fn subprog_enter(&mut self) -> bool {
        if self.frame >= 15 {
            return false;
        }
        self.frame += 1;
        true
    }
    /// `bt_subprog_exit`: backtracking moves out to the caller's frame.
    fn subprog_exit(&mut self) -> bool {
        if self.frame == 0 {
            return false;
        }
        self.frame -= 1;
        true
    }
    fn clear_reg(&mut self, r: usize) {
        self.reg_masks[self.frame & 15] &= !(1 << r);
    }
}

enum Bt {
    Ok,
    NotSupp,
}

/// The registers whose tracking (in the current frame) makes
/// `backtrack_insn` act on an insn with no history entry that says more
/// than where it came from; `BT_NEVER_NOOP` if it always acts. An insn is
/// passed over without touching the masks (`bt_insn_is_noop`), the bulk of
/// a long walk, when it is an ALU op or load whose destination is not
/// tracked, a tracked destination changed by a constant, a jump that
/// compares no tracked register.
fn bt_insn_noop_unless(insn: &Insn) -> u32 {
    let reg = |r: u8| 1u32 << (r & 15);
    let class = insn.class();
    let op = insn.opcode();
    if class == BPF_ALU || class == BPF_ALU64 {
        if op == BPF_END || op == BPF_NEG || (op != BPF_MOV && !insn.is_src_x()) { 0 } else { reg(insn.dst) }
    } else if class == BPF_JMP || class == BPF_JMP32 {
        if op == BPF_CALL || op == BPF_EXIT {
            BT_NEVER_NOOP
        } else if !insn.is_src_x() || op == BPF_JA {
            0
        } else {
            reg(insn.dst) | reg(insn.src)
        }
    } else if class == BPF_LDX {
        reg(insn.dst)
    } else if insn.code == 0 {
        // the second half of a wide insn
        0
    } else {
        BT_NEVER_NOOP
    }
}

/// Not a register: `bt_insn_noop_unless` of an insn that always acts.
const BT_NEVER_NOOP: u32 = 1 << 31;

/// `backtrack_insn` would pass `insn` over with `reg_mask` tracked.
#[inline]
fn bt_insn_is_noop(noop_unless: u32, reg_mask: u32) -> bool {
    noop_unless & ((reg_mask & 0xffff) | BT_NEVER_NOOP) == 0
}

/// Where backtracking through one state's history stands.
struct HistoryWalk {
    last_idx: i64,
    cur_first: i64,
    subseq_idx: i64,
    skip_first: bool,
    lvl2: bool,
    /// Insns visited in this whole precision walk, a bound against a
    /// broken history.
    guard: u64,
}

/// How backtracking through one state's history ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HistoryStep {
    /// Nothing left to backtrack.
    Done,
    /// An insn backtracking cannot follow: everything becomes precise.
    NotSupp,
    /// The state's first insn: continue in its parent.
    ReachedFirst,
}

/// Insns visited in one precision walk at most: a bound against a broken
/// history.
const BT_GUARD_MAX: u64 = 10_000_000;

/// A point of a walk through one state's history: the insn, the history
/// entries left (`hist[..history]`), the insn backtracked before, and the
/// insns visited so far.
#[derive(Clone, Copy, Debug)]
struct WalkPos {
    i: i64,
    history: usize,
    subseq_idx: i64,
    guard: u64,
}

/// Where a walk may be remembered from: the masks are taken only once
/// they are about to change (`None`: still as they are now).
struct MemoStart {
    at: WalkPos,
    masks: Option<BtMasks>,
}

/// `get_jmp_hist_entry`: the history entry of the insn `at` stands on.
#[inline]
fn bt_hist_top<'h>(hist: &'h [JmpHistEntry], at: &WalkPos) -> Option<&'h JmpHistEntry> {
    at.history.checked_sub(1).and_then(|k| hist.get(k)).filter(|h| h.idx as i64 == at.i)
}

/// The state's first insn, with no history entry left but its own: the
/// walk through this state is complete.
#[inline]
fn bt_at_first_insn(hist: &[JmpHistEntry], at: &WalkPos, cur_first: i64) -> bool {
    at.i == cur_first && (at.history == 0 || (at.history == 1 && hist[0].idx as i64 == at.i))
}

/// `get_prev_insn_idx`: step back to the insn that ran before, through
/// the history entry `top` of a jump there.
#[inline]
fn bt_prev_insn(at: &mut WalkPos, top: Option<&JmpHistEntry>) {
    at.subseq_idx = at.i;
    match top {
        Some(h) => {
            at.i = h.prev_idx as i64;
            at.history -= 1;
        }
        None => at.i -= 1,
    }
}

/// What a walk through one state does for the memo.
struct MemoWalk {
    start: Option<MemoStart>,
    /// It met the memo and ended as it did.
    replayed: bool,
}

/// How a run of no-op insns ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NoopRun {
    /// At an insn for the general step.
    Stopped,
    /// At the state's first insn, passed over.
    ReachedFirst,
}

/// Walk `at` back over a run of insns that `backtrack_insn` would pass
/// over (`bt_insn_is_noop`, with no history entry that says more than
/// where the insn came from): the masks stay as they are, so such a step
/// is only `get_prev_insn_idx`. Stops before `memo_i` (where the memo may
/// match), before an insn out of the program, and where the walk reaches
/// the state's first insn.
#[inline]
fn bt_skip_noops(noop_unless: &[u32], hist: &[JmpHistEntry], reg_mask: u32, cur_first: i64, memo_i: i64, at: &mut WalkPos) -> NoopRun {
    let acts = (reg_mask & 0xffff) | BT_NEVER_NOOP;
    // the history entries left
    let mut rest = &hist[..at.history.min(hist.len())];
    let WalkPos { mut i, mut subseq_idx, mut guard, .. } = *at;
    let run = loop {
        if i == memo_i || guard >= BT_GUARD_MAX {
            break NoopRun::Stopped;
        }
        let Some(&unless) = noop_unless.get(i as usize) else { break NoopRun::Stopped };
        if unless & acts != 0 {
            break NoopRun::Stopped;
        }
        let top = match rest.split_last() {
            Some((h, older)) if h.idx as i64 == i => {
                if h.flags != 0 || h.linked_regs != 0 {
                    break NoopRun::Stopped;
                }
                Some((h, older))
            }
            _ => None,
        };
        guard += 1;
        subseq_idx = i;
        if i == cur_first && (rest.is_empty() || (rest.len() == 1 && top.is_some())) {
            break NoopRun::ReachedFirst;
        }
        match top {
            Some((h, older)) => {
                i = h.prev_idx as i64;
                rest = older;
            }
            None => i -= 1,
        }
    };
    *at = WalkPos { i, history: rest.len(), subseq_idx, guard };
    run
}

impl Env<'_, '_> {
    pub(crate) fn bt_reset(&mut self) {
        self.bt.set_masks(&BtMasks::default());
    }

    /// A level-2 log shows every step of a walk.
    #[inline]
    fn bt_log_level2(&mut self) -> bool {
        match self.bt.log_level2 {
            Some(l) => l,
            None => *self.bt.log_level2.insert(self.level() & BPF_LOG_LEVEL2 != 0),
        }
    }

    /// `mark_chain_precision`.
    pub(crate) fn mark_chain_precision(&mut self, regno: usize) -> VResult<()> {
        if !self.bpf_capable() {
            return Ok(());
        }
        self.bt_reset();
        self.bt.frame = self.cur.curframe();
        if self.regs()[regno].typ != SCALAR_VALUE {
            self.verbose("verifier bug: backtracking misuse\n");
            return errno(EFAULT);
        }
        self.bt.set_reg(regno);
        self.do_mark_chain_precision()
    }

    /// `mark_chain_precision_batch`: the masks are already in `self.bt`.
    pub(crate) fn mark_chain_precision_batch(&mut self) -> VResult<()> {
        if !self.bpf_capable() {
            return Ok(());
        }
        self.do_mark_chain_precision()
    }

    /// `backtrack_insn`: `subseq_idx` is the insn backtracked before
    /// (the one that ran after `idx`). Out of line: the walk's loop, which
    /// mostly passes insns over, stays small.
    #[inline(never)]
    fn backtrack_insn(&mut self, idx: usize, subseq_idx: i64, hist: Option<JmpHistEntry>, lvl2: bool) -> VResult<Bt> {
        let insn = self.insn(idx);
        if insn.code == 0 {
            return Ok(Bt::Ok);
        }
        if lvl2 {
            self.bt_log_insn(idx);
        }
        self.bt_sync_linked_regs(hist);
        let class = insn.class();
        let opcode = insn.opcode();
        let (dreg, sreg) = (insn.dst as usize, insn.src as usize);
        match class {
            BPF_ALU | BPF_ALU64 => {
                if !self.bt.reg_set(dreg) {
                    return Ok(Bt::Ok);
                }
                if opcode == BPF_END || opcode == BPF_NEG {
                    return Ok(Bt::Ok);
                }
                if opcode == BPF_MOV {
                    self.bt.clear_reg(dreg);
                    if insn.is_src_x() && sreg != BPF_REG_FP {
                        self.bt.set_reg(sreg);
                    }
                } else if insn.is_src_x() && sreg != BPF_REG_FP {
                    self.bt.set_reg(sreg);
                }
            }
            BPF_LDX => {
                if !self.bt.reg_set(dreg) {
                    return Ok(Bt::Ok);
                }
                self.bt.clear_reg(dreg);
                if let Some(h) = hist
                    && h.flags & INSN_F_STACK_ACCESS != 0
                {
                    self.bt.stack_masks[h.frame as usize & 15] |= 1u64 << (h.spi & 63);
                }
            }
            BPF_STX | BPF_ST => {
                // is_atomic_load_insn: load-acquire loads dreg like an ldx
                let load_acq = class == BPF_STX && insn.mode() == BPF_ATOMIC && insn.imm == BPF_LOAD_ACQ;
                // and so does a fetching atomic: never a spill here
                if load_acq || (class == BPF_STX && insn.mode() == BPF_ATOMIC && insn.imm & BPF_FETCH != 0) {
                    let load = if load_acq {
                        dreg
                    } else if insn.imm == BPF_CMPXCHG {
                        0
                    } else {
                        sreg
                    };
                    if self.bt.reg_set(load) {
                        self.bt.clear_reg(load);
                        if let Some(h) = hist
                            && h.flags & INSN_F_STACK_ACCESS != 0
                        {
                            self.bt.stack_masks[h.frame as usize & 15] |= 1u64 << (h.spi & 63);
                        }
                    }
                    return Ok(Bt::Ok);
                }
                if self.bt.reg_set(dreg) {
                    return Ok(Bt::NotSupp);
                }
                let Some(h) = hist.filter(|h| h.flags & INSN_F_STACK_ACCESS != 0) else { return Ok(Bt::Ok) };
                let (fr, spi) = (h.frame as usize & 15, h.spi & 63);
                if self.bt.stack_masks[fr] & (1u64 << spi) == 0 {
                    return Ok(Bt::Ok);
                }
                self.bt.stack_masks[fr] &= !(1u64 << spi);
                if class == BPF_STX {
                    self.bt.set_reg(sreg);
                }
            }
            BPF_JMP | BPF_JMP32 => {
                const ARGS: u32 = 0b111110;
                let bug = |env: &mut Self, what: String| -> VResult<Bt> {
                    env.verbose(&format!("verifier bug: {what}\n"));
                    errno(EFAULT)
                };
                if insn.is_pseudo_call() {
                    let Some(subprog) = self.find_subprog(idx as i64 + insn.imm as i64 + 1) else { return errno(EFAULT) };
                    if self.subprog_is_global(subprog) {
                        if self.bt.reg_mask() & ARGS != 0 {
                            let m = self.bt.reg_mask();
                            return bug(self, format!("global subprog unexpected regs {m:x}"));
                        }
                        self.bt.clear_reg(0);
                        return Ok(Bt::Ok);
                    }
                    if self.bt.reg_mask() & !ARGS != 0 {
                        let m = self.bt.reg_mask();
                        return bug(self, format!("static subprog unexpected regs {m:x}"));
                    }
                    if self.bt.stack_mask() != 0 {
                        let m = self.bt.stack_mask();
                        return bug(self, format!("static subprog leftover stack slots {m:x}"));
                    }
                    let fr = self.bt.frame;
                    for i in 1..=5 {
                        if self.bt.reg_set(i) {
                            self.bt.clear_reg(i);
                            if fr > 0 {
                                self.bt.reg_masks[(fr - 1) & 15] |= 1 << i;
                            }
                        }
                    }
                    if !self.bt.subprog_exit() {
                        return errno(EFAULT);
                    }
                    return Ok(Bt::Ok);
                }
                let sync_cb = insn.is_call()
                    && ((insn.src == 0 && super::helpers::is_sync_callback_calling_function(insn.imm))
                        || (insn.src == BPF_PSEUDO_KFUNC_CALL && super::kfuncs::is_sync_callback_calling_kfunc(self, insn.imm)));
                if sync_cb && idx as i64 != subseq_idx - 1 {
                    if self.bt.reg_mask() & !ARGS != 0 {
                        let m = self.bt.reg_mask();
                        return bug(self, format!("callback unexpected regs {m:x}"));
                    }
                    if self.bt.stack_mask() != 0 {
                        let m = self.bt.stack_mask();
                        return bug(self, format!("callback leftover stack slots {m:x}"));
                    }
                    for i in 1..=5 {
                        self.bt.clear_reg(i);
                    }
                    if !self.bt.subprog_exit() {
                        return errno(EFAULT);
                    }
                    return Ok(Bt::Ok);
                }
                if opcode == BPF_CALL {
                    if insn.src == BPF_PSEUDO_KFUNC_CALL && insn.imm == 0 {
                        return Ok(Bt::NotSupp);
                    }
                    self.bt.clear_reg(0);
                    if self.bt.reg_mask() & ARGS != 0 {
                        let m = self.bt.reg_mask();
                        return bug(self, format!("backtracking call unexpected regs {m:x}"));
                    }
                    if insn.src == 0 && insn.imm == super::helpers::func::TAIL_CALL && subseq_idx - idx as i64 != 1 && !self.bt.subprog_enter() {
                        return errno(EFAULT);
                    }
                    return Ok(Bt::Ok);
                }
                if opcode == BPF_EXIT {
                    let from_subprog_call = subseq_idx >= 1 && self.insn((subseq_idx - 1) as usize).is_pseudo_call();
                    let r0_precise = from_subprog_call && self.bt.reg_set(0);
                    if from_subprog_call && self.bt.reg_mask() & ARGS != 0 {
                        let m = self.bt.reg_mask();
                        return bug(self, format!("backtracking exit unexpected regs {m:x}"));
                    }
                    self.bt.clear_reg(0);
                    if !self.bt.subprog_enter() {
                        return errno(EFAULT);
                    }
                    if r0_precise {
                        self.bt.set_reg(0);
                    }
                    return Ok(Bt::Ok);
                }
                if insn.is_src_x() && opcode != BPF_JA {
                    if !self.bt.reg_set(dreg) && !self.bt.reg_set(sreg) {
                        return Ok(Bt::Ok);
                    }
                    if hist.is_none_or(|h| h.flags & INSN_F_SRC_REG_STACK == 0) {
                        self.bt.set_reg(sreg);
                    }
                    if hist.is_none_or(|h| h.flags & INSN_F_DST_REG_STACK == 0) {
                        self.bt.set_reg(dreg);
                    }
                }
            }
            _ => {
                if insn.mode() == BPF_IMM {
                    self.bt.clear_reg(dreg);
                    return Ok(Bt::Ok);
                }
                if self.bt.reg_set(dreg) {
                    return Ok(Bt::NotSupp);
                }
                // LD_ABS/LD_IND also end a subprogram on their hidden
                // exit path: backtracking that path re-enters the callee
                if subseq_idx != idx as i64 + 1 && !self.bt.subprog_enter() {
                    return errno(EFAULT);
                }
                return Ok(Bt::Ok);
            }
        }
        self.bt_sync_linked_regs(hist);
        Ok(Bt::Ok)
    }

    /// `bpf_bt_sync_linked_regs`: most history entries link nothing.
    #[inline]
    fn bt_sync_linked_regs(&mut self, hist: Option<JmpHistEntry>) {
        if let Some(h) = hist
            && h.linked_regs != 0
        {
            self.bt_sync_linked_regs_slow(h.linked_regs);
        }
    }

    fn bt_sync_linked_regs_slow(&mut self, linked_regs: u64) {
        let regs = super::jmp::linked_regs_unpack(linked_regs);
        let some = regs.iter().any(|e| {
            if e.is_reg {
                self.bt.reg_masks[e.frameno & 15] & (1 << e.regno_or_spi) != 0
            } else {
                self.bt.stack_masks[e.frameno & 15] & (1u64 << (e.regno_or_spi & 63)) != 0
            }
        });
        if !some {
            return;
        }
        for e in regs {
            if e.is_reg {
                self.bt.reg_masks[e.frameno & 15] |= 1 << e.regno_or_spi;
            } else {
                self.bt.stack_masks[e.frameno & 15] |= 1u64 << (e.regno_or_spi & 63);
            }
        }
    }

    /// `bpf_mark_chain_precision` from the current state.
    fn do_mark_chain_precision(&mut self) -> VResult<()> {
        let mut changed = false;
        self.bpf_mark_chain_precision(None, &mut changed)
    }

    /// `bpf_mark_chain_precision`: walk back from `start` (`None`: the
    /// current state; else a detached state such as a loop back-edge copy)
    /// through its jump history and its checkpoints, marking what `self.bt`
    /// asks for precise there; `changed` tells whether any mark was new.
    pub(crate) fn bpf_mark_chain_precision(&mut self, start: Option<&VerifierState>, changed: &mut bool) -> VResult<()> {
        if !self.bpf_capable() {
            return Ok(());
        }
        let (s_first, s_insn, s_parent, s_frame) = match start {
            Some(st) => (st.first_insn_idx, st.insn_idx, st.parent, st.curframe()),
            None => (self.cur.first_insn_idx, self.cur.insn_idx, self.cur.parent, self.cur.curframe()),
        };
        self.bt.frame = s_frame;
        if self.bt.empty() {
            return Ok(());
        }
        let mut first_idx = s_first as i64;
        let mut last_idx = s_insn as i64;
        let mut subseq_idx: i64 = -1;
        let mut skip_first = true;
        // None: the starting state; Some(i): checkpoint i
        let mut st: Option<usize> = None;
        // st's parent
        let mut parent = s_parent;
        let mut guard = 0u64;
        let lvl2 = self.bt_log_level2();
        loop {
            if lvl2 {
                self.bt_log_walk(last_idx, first_idx, subseq_idx);
            }
            if last_idx < 0 {
                return self.bt_func_entry(start, st, changed);
            }
            let mut walk = HistoryWalk { last_idx, cur_first: first_idx, subseq_idx, skip_first, lvl2, guard };
            // the history is lent out of its state for the walk (nothing
            // the walk does reads it back there): no copy per walk
            let lent = match (st, start) {
                (None, Some(_)) => Vec::new(),
                (None, None) => std::mem::take(&mut self.cur.jmp_history),
                (Some(c), _) => std::mem::take(&mut self.checkpoints[c].state.jmp_history),
            };
            let hist = match (st, start) {
                (None, Some(s)) => &s.jmp_history[..],
                _ => &lent[..],
            };
            let step = self.backtrack_history(hist, &mut walk);
            match st {
                None if start.is_some() => {}
                None => self.cur.jmp_history = lent,
                Some(c) => self.checkpoints[c].state.jmp_history = lent,
            }
            skip_first = walk.skip_first;
            guard = walk.guard;
            match step? {
                HistoryStep::Done => return Ok(()),
                HistoryStep::NotSupp => {
                    self.mark_all_scalars_precise(s_parent, s_frame);
                    self.bt_reset();
                    return Ok(());
                }
                HistoryStep::ReachedFirst => {}
            }
            let Some(p) = parent else { break };
            st = Some(p);
            for fr in (0..=self.bt.frame).rev() {
                let Some(func) = self.checkpoints[p].state.frame.get_mut(fr) else { continue };
                // the set bits only, in ascending order
                let mut regs = self.bt.reg_masks[fr];
                while regs != 0 {
                    let r = regs.trailing_zeros() as usize;
                    regs &= regs - 1;
                    let Some(reg) = func.regs.get_mut(r) else { continue };
                    if reg.typ != SCALAR_VALUE || reg.precise {
                        self.bt.reg_masks[fr] &= !(1 << r);
                    } else {
                        reg.precise = true;
                        *changed = true;
                    }
                }
                let mut slots = self.bt.stack_masks[fr];
                while slots != 0 {
                    let s = slots.trailing_zeros() as usize;
                    slots &= slots - 1;
                    let total = func.stack.len();
                    let Some(slot) = func.stack.get_mut(s) else {
                        self.verbose(&format!("verifier bug: stack slot {s}, total slots {total} (i >= func->allocated_stack / BPF_REG_SIZE)\n"));
                        return errno(EFAULT);
                    };
                    if !slot.is_spilled_scalar_reg() || slot.spilled_ptr.precise {
                        self.bt.stack_masks[fr] &= !(1u64 << s);
                    } else {
                        slot.spilled_ptr.precise = true;
                        *changed = true;
                    }
                }
                if lvl2 {
                    self.bt_log_parent_state(p, fr);
                }
            }
            if self.bt.empty() {
                return Ok(());
            }
            let pst = &self.checkpoints[p].state;
            subseq_idx = first_idx;
            last_idx = pst.last_insn_idx;
            first_idx = pst.first_insn_idx as i64;
            parent = pst.parent;
        }
        if !self.bt.empty() {
            self.mark_all_scalars_precise(s_parent, s_frame);
            self.bt_reset();
        }
        Ok(())
    }

    /// The walk reached the entry of a global function (`last_idx < 0`):
    /// only its arguments may still want precision. `st` as in
    /// `bpf_mark_chain_precision`.
    #[cold]
    #[inline(never)]
    fn bt_func_entry(&mut self, start: Option<&VerifierState>, st: Option<usize>, changed: &mut bool) -> VResult<()> {
        let (curframe, f0) = match st {
            None => match start {
                Some(s) => (s.curframe(), &s.frame[0]),
                None => (self.cur.curframe(), &self.cur.frame[0]),
            },
            Some(c) => (self.checkpoints[c].state.curframe(), &self.checkpoints[c].state.frame[0]),
        };
        if curframe == 0 && f0.subprogno > 0 && f0.callsite == -1 && self.bt.stack_masks[0] == 0 && self.bt.reg_masks[0] & !0b111110 == 0 {
            let mask = self.bt.reg_masks[0];
            self.bt.reg_masks[0] = 0;
            for i in 0..MAX_BPF_REG {
                if mask & (1 << i) == 0 {
                    continue;
                }
                // a detached starting state is never a function's
                // entry: st is a checkpoint here
                let r = match st {
                    None if start.is_some() => continue,
                    None => &mut self.cur.frame[0].regs[i],
                    Some(c) => &mut self.checkpoints[c].state.frame[0].regs[i],
                };
                if r.typ == SCALAR_VALUE {
                    r.precise = true;
                    *changed = true;
                }
            }
            return Ok(());
        }
        let s =
            format!("verifier bug: backtracking func entry subprog {} reg_mask {:x} stack_mask {:x}\n", f0.subprogno, self.bt.reg_mask(), self.bt.stack_mask());
        self.verbose(&s);
        errno(EFAULT)
    }

    /// The level-2 log's `mark_precise: ... parent state` line.
    #[cold]
    #[inline(never)]
    fn bt_log_parent_state(&mut self, p: usize, fr: usize) {
        let mut s =
            format!("mark_precise: frame{fr}: parent state regs={} stack={}: ", fmt_reg_mask(self.bt.reg_masks[fr]), fmt_stack_mask(self.bt.stack_masks[fr]));
        let sc = super::print::Scratch::default();
        super::print::print_verifier_state(&mut s, &self.checkpoints[p].state, fr, true, &sc, &self.maps);
        self.verbose(&s);
    }

    /// The level-2 log's line for an insn backtracked through:
    /// `mark_precise: frame0: regs=r6 stack= before 7: (xx) ...`.
    fn bt_log_insn(&mut self, idx: usize) {
        let f = self.bt.frame;
        let mut s = self.kbuf();
        s.push_str("mark_precise: frame");
        push_u64(&mut s, f as u64);
        s.push_str(": regs=");
        print_reg_mask(&mut s, self.bt.reg_masks[f & 15]);
        s.push_str(" stack=");
        print_stack_mask(&mut s, self.bt.stack_masks[f & 15]);
        s.push_str(" before ");
        push_u64(&mut s, idx as u64);
        s.push_str(": ");
        s.push_str(self.cached_insn_text(idx));
        s.push('\n');
        self.verbose_kbuf(s);
    }

    /// The level-2 log's line for a walk through one state.
    #[cold]
    #[inline(never)]
    fn bt_log_walk(&mut self, last_idx: i64, first_idx: i64, subseq_idx: i64) {
        let s = format!("mark_precise: frame{}: last_idx {last_idx} first_idx {first_idx} subseq_idx {subseq_idx} \n", self.bt.frame);
        self.verbose(&s);
    }

    /// The inner loop of `bpf_mark_chain_precision`: backtrack one state's
    /// insns from `walk.last_idx` back to its first insn, following `hist`
    /// (`get_jmp_hist_entry` / `get_prev_insn_idx`).
    #[inline]
    fn backtrack_history(&mut self, hist: &[JmpHistEntry], walk: &mut HistoryWalk) -> VResult<HistoryStep> {
        let mut at = WalkPos { i: walk.last_idx, history: hist.len(), subseq_idx: walk.subseq_idx, guard: walk.guard };
        // the memo is never used with a level-2 log, which shows each step;
        // otherwise it can only match at its own insn, and only if it
        // remembers this state (its history no longer than this one's)
        let m = &self.bt.memo;
        let memo_i = if !walk.lvl2 && m.valid && m.cur_first == walk.cur_first && m.prefix.len() <= at.history { m.i } else { -1 };
        let mut memo = MemoWalk { start: None, replayed: false };
        let step = 'walk: {
            if walk.skip_first && !walk.lvl2 {
                // the insn precision was asked at is not backtracked:
                // step back from it (as `backtrack_step` does, which also
                // logs it)
                walk.skip_first = false;
                at.guard += 1;
                if at.guard > BT_GUARD_MAX {
                    walk.guard = at.guard;
                    return errno(EFAULT);
                }
                if self.bt.empty() {
                    break 'walk HistoryStep::Done;
                }
                if bt_at_first_insn(hist, &at, walk.cur_first) {
                    at.subseq_idx = at.i;
                    break 'walk HistoryStep::ReachedFirst;
                }
                let top = bt_hist_top(hist, &at);
                bt_prev_insn(&mut at, top);
                if at.i < 0 || at.i >= self.input.insns.len() as i64 {
                    return self.bt_bad_idx(at.i);
                }
            }
            loop {
                if !walk.lvl2 && !walk.skip_first {
                    let from = at;
                    if self.bt.noop_unless.len() != self.input.insns.len() {
                        self.bt.noop_unless = self.input.insns.iter().map(bt_insn_noop_unless).collect();
                    }
                    let run = bt_skip_noops(&self.bt.noop_unless, hist, self.bt.reg_mask(), walk.cur_first, memo_i, &mut at);
                    if at.guard != from.guard {
                        if memo.start.is_none() {
                            memo.start = Some(MemoStart { at: WalkPos { guard: from.guard + 1, ..from }, masks: None });
                        }
                        if run == NoopRun::ReachedFirst {
                            break HistoryStep::ReachedFirst;
                        }
                        if at.i < 0 || at.i >= self.input.insns.len() as i64 {
                            return self.bt_bad_idx(at.i);
                        }
                    }
                }
                if let Some(step) = self.backtrack_step(hist, walk, &mut at, memo_i, &mut memo)? {
                    break step;
                }
            }
        };
        if step == HistoryStep::ReachedFirst
            && let Some(s) = memo.start
            && at.guard - s.at.guard >= MEMO_MIN_STEPS
        {
            self.bt_memo_remember(hist, walk.cur_first, &s, &at, memo.replayed);
        }
        walk.subseq_idx = at.subseq_idx;
        walk.guard = at.guard;
        Ok(step)
    }

    #[cold]
    #[inline(never)]
    fn bt_bad_idx<T>(&mut self, i: i64) -> VResult<T> {
        self.verbose(&format!("verifier bug: backtracking idx {i}\n"));
        errno(EFAULT)
    }

    /// One step of `backtrack_history` at `at`, in general: with its
    /// history entry, the memo, and `backtrack_insn`. `Some` when the walk
    /// through this state ends here. Out of line: most steps are runs of
    /// no-op insns.
    #[inline(never)]
    fn backtrack_step(
        &mut self,
        hist: &[JmpHistEntry],
        walk: &mut HistoryWalk,
        at: &mut WalkPos,
        memo_i: i64,
        memo: &mut MemoWalk,
    ) -> VResult<Option<HistoryStep>> {
        at.guard += 1;
        if at.guard > BT_GUARD_MAX {
            walk.guard = at.guard;
            return errno(EFAULT);
        }
        let i = at.i;
        let top = bt_hist_top(hist, at);
        if walk.skip_first {
            walk.skip_first = false;
            if self.bt.empty() {
                return Ok(Some(HistoryStep::Done));
            }
        } else {
            if !walk.lvl2 {
                if i == memo_i && self.bt.memo.matches(i, at.history, at.subseq_idx, walk.cur_first, &self.bt, hist) {
                    if let Some(s) = &mut memo.start
                        && s.masks.is_none()
                    {
                        s.masks = Some(self.bt.masks());
                    }
                    self.bt_replay_memo(hist, walk.cur_first, at);
                    memo.replayed = true;
                    return Ok(Some(HistoryStep::ReachedFirst));
                }
                if memo.start.is_none() {
                    memo.start = Some(MemoStart { at: *at, masks: None });
                }
            }
            if !walk.lvl2
                && top.is_none_or(|h| h.flags == 0 && h.linked_regs == 0)
                && bt_insn_is_noop(bt_insn_noop_unless(&self.insn(i as usize)), self.bt.reg_mask())
            {
                // the masks are unchanged and were not empty
            } else {
                // the masks may change from here: keep them as they were
                // where the walk is remembered from
                if let Some(s) = &mut memo.start
                    && s.masks.is_none()
                {
                    s.masks = Some(self.bt.masks());
                }
                if let Bt::NotSupp = self.backtrack_insn(i as usize, at.subseq_idx, top.copied(), walk.lvl2)? {
                    return Ok(Some(HistoryStep::NotSupp));
                }
                if self.bt.empty() {
                    return Ok(Some(HistoryStep::Done));
                }
            }
        }
        if bt_at_first_insn(hist, at, walk.cur_first) {
            at.subseq_idx = i;
            return Ok(Some(HistoryStep::ReachedFirst));
        }
        bt_prev_insn(at, top);
        if at.i < 0 || at.i >= self.input.insns.len() as i64 {
            return self.bt_bad_idx(at.i);
        }
        Ok(None)
    }

    /// Remember a long walk that went through the whole state from
    /// `start` (so it visited at least as many insns as it has history
    /// entries to copy); a short one is not worth it, and would push out a
    /// long one that a walk through the parent may still meet.
    #[inline(never)]
    fn bt_memo_remember(&mut self, hist: &[JmpHistEntry], cur_first: i64, start: &MemoStart, end: &WalkPos, replayed: bool) {
        let end_masks = self.bt.masks();
        let m = &mut self.bt.memo;
        // a walk that met the memo extends its history
        if !(replayed && m.prefix.len() <= start.at.history) {
            m.prefix.clear();
        }
        let have = m.prefix.len();
        m.prefix.extend_from_slice(&hist[have..start.at.history]);
        m.valid = true;
        m.i = start.at.i;
        m.subseq_idx = start.at.subseq_idx;
        m.cur_first = cur_first;
        // untouched since the start: the masks it ended with
        m.masks = start.masks.unwrap_or(end_masks);
        m.end_masks = end_masks;
        m.end_subseq_idx = end.subseq_idx;
        m.steps = end.guard - start.at.guard;
    }

    /// The remembered walk passes where `at` stands: end where it ended
    /// (the state's first insn), without walking there again.
    #[inline(never)]
    fn bt_replay_memo(&mut self, hist: &[JmpHistEntry], cur_first: i64, at: &mut WalkPos) {
        let m = &self.bt.memo;
        let (end_masks, end_subseq_idx, steps) = (m.end_masks, m.end_subseq_idx, m.steps);
        #[cfg(debug_assertions)]
        {
            // check the replay against the walk it stands for
            let masks = self.bt.masks();
            let mut w = HistoryWalk { last_idx: at.i, cur_first, subseq_idx: at.subseq_idx, skip_first: false, lvl2: false, guard: 0 };
            let memo = std::mem::take(&mut self.bt.memo);
            let r = self.backtrack_history(&hist[..at.history], &mut w);
            assert!(matches!(r, Ok(HistoryStep::ReachedFirst)), "backtrack memo replay: {r:?}");
            assert_eq!((self.bt.masks(), w.subseq_idx), (end_masks, end_subseq_idx), "backtrack memo replay");
            self.bt.set_masks(&masks);
            self.bt.memo = memo;
        }
        #[cfg(not(debug_assertions))]
        let _ = (hist, cur_first);
        self.bt.set_masks(&end_masks);
        at.subseq_idx = end_subseq_idx;
        at.guard += steps;
    }

    /// `bpf_mark_all_scalars_precise`: every scalar of every checkpoint
    /// from `parent` (the starting state's) up; `curframe` is the starting
    /// state's.
    pub(crate) fn mark_all_scalars_precise(&mut self, parent: Option<usize>, curframe: usize) {
        if self.level() & BPF_LOG_LEVEL2 != 0 {
            let s = format!("mark_precise: frame{curframe}: falling back to forcing all scalars precise\n");
            self.verbose(&s);
        }
        let mut p = parent;
        let lvl2 = self.level() & BPF_LOG_LEVEL2 != 0;
        while let Some(c) = p {
            let mut lines = String::new();
            let st = &mut self.checkpoints[c].state;
            for (i, func) in st.frame.iter_mut().enumerate() {
                for j in 0..BPF_REG_FP {
                    let r = &mut func.regs[j];
                    if r.typ != SCALAR_VALUE || r.precise {
                        continue;
                    }
                    r.precise = true;
                    if lvl2 {
                        lines.push_str(&format!("force_precise: frame{i}: forcing r{j} to be precise\n"));
                    }
                }
                for (j, slot) in func.stack.iter_mut().enumerate() {
                    if !slot.is_spilled_reg() || slot.spilled_ptr.typ != SCALAR_VALUE || slot.spilled_ptr.precise {
                        continue;
                    }
                    slot.spilled_ptr.precise = true;
                    if lvl2 {
                        lines.push_str(&format!("force_precise: frame{i}: forcing fp{} to be precise\n", -(j as i64 + 1) * 8));
                    }
                }
            }
            p = st.parent;
            self.verbose(&lines);
        }
    }
}

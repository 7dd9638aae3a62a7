//! State pruning (`kernel/bpf/states.c`): `bpf_is_state_visited`,
//! `states_equal` / `regsafe` / `stacksafe`, `clean_verifier_state`, the
//! infinite-loop check, checkpoint bookkeeping (the free list,
//! `bpf_update_branch_counts`) and loops: a checkpoint inside a strongly
//! connected component opens a visit of it (`maybe_enter_scc`); states
//! found equal to a loop checkpoint before all its paths are explored are
//! kept as back-edges, and when the visit's entry checkpoint is done their
//! precision marks are propagated to a fixed point (`propagate_backedges`).

use std::collections::HashMap;

use super::do_check::*;
use super::env::bpf_is_may_goto_insn as is_may_goto_insn;
use super::reg::*;
use super::scalar::*;
use super::state::*;
use super::tnum::*;
use crate::limits::MAX_CALL_FRAMES;

/// `BPF_COMPLEXITY_LIMIT_STATES`.
const BPF_COMPLEXITY_LIMIT_STATES: usize = 64;

/// 7.3's `enum exact_level`, its names kept.
#[derive(Clone, Copy, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)]
enum Exact {
    NotExact,
    Exact,
    RangeWithin,
}

/// `MAX_BACKEDGE_ITERS`.
const MAX_BACKEDGE_ITERS: u32 = 64;

/// `struct bpf_scc_callchain`: the call sites of the frames above the
/// first one inside an SCC, and that SCC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Callchain {
    callsites: [u32; MAX_CALL_FRAMES - 1],
    scc: u32,
}

impl Callchain {
    /// `format_callchain`: `(callsite,...,scc)`.
    fn format(&self) -> String {
        let mut s = String::from("(");
        for c in self.callsites.iter().take_while(|&&c| c != 0) {
            s.push_str(&format!("{c},"));
        }
        s.push_str(&format!("{})", self.scc));
        s
    }
}

/// `struct bpf_scc_visit`.
#[derive(Debug)]
struct SccVisit {
    callchain: Callchain,
    /// The checkpoint that entered the SCC on this visit.
    entry_state: Option<usize>,
    /// States found equal to a checkpoint of the visit (newest last), each
    /// with the checkpoint it matched in `equal_state`.
    backedges: Vec<VerifierState>,
    num_backedges: u32,
}

/// `env->scc_info`: the visits of each SCC.
#[derive(Debug, Default)]
pub struct SccState {
    /// Indexed by SCC number (dense, from 1): no hashing on the hot path.
    visits: Vec<Vec<SccVisit>>,
}

/// Which state an SCC check is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StateRef {
    Cur,
    Checkpoint(usize),
}

/// Pairs an [`IdMap`] holds without allocating: most comparisons map a
/// handful of ids.
const IDMAP_INLINE: usize = 16;

/// `struct bpf_idmap`: old id to current id, in insertion order.
struct IdMap {
    inline: [(u32, u32); IDMAP_INLINE],
    len: usize,
    /// The pairs past the inline ones.
    more: Vec<(u32, u32)>,
    tmp_id_gen: u32,
}

impl IdMap {
    fn new(tmp_id_gen: u32) -> IdMap {
        IdMap { inline: [(0, 0); IDMAP_INLINE], len: 0, more: Vec::new(), tmp_id_gen }
    }

    /// `check_ids`.
    fn check_ids(&mut self, old: u32, cur: u32) -> bool {
        if (old != 0) != (cur != 0) {
            return false;
        }
        if old == 0 {
            return true;
        }
        for &(o, c) in self.inline[..self.len].iter().chain(&self.more) {
            if o == old {
                return c == cur;
            }
            if c == cur {
                return false;
            }
        }
        if self.len < IDMAP_INLINE {
            self.inline[self.len] = (old, cur);
            self.len += 1;
        } else {
            self.more.push((old, cur));
        }
        true
    }

    /// `check_scalar_ids`.
    fn check_scalar_ids(&mut self, old: u32, cur: u32) -> bool {
        if old == 0 {
            return true;
        }
        let cur = if cur != 0 {
            cur
        } else {
            self.tmp_id_gen += 1;
            self.tmp_id_gen
        };
        if !self.check_ids(old, cur) {
            return false;
        }
        if old & BPF_ADD_CONST != 0 {
            return self.check_ids(old & !BPF_ADD_CONST, cur & !BPF_ADD_CONST);
        }
        true
    }
}

/// The fields `regs_exact` compares with `memcmp` (up to `id`).
fn same_value(a: &RegState, b: &RegState) -> bool {
    a.typ == b.typ && a.delta == b.delta && a.aux == b.aux && a.aux2 == b.aux2 && a.s == b.s
}

fn regs_exact(old: &RegState, cur: &RegState, m: &mut IdMap) -> bool {
    same_value(old, cur) && m.check_ids(old.id, cur.id) && m.check_ids(old.parent_id, cur.parent_id) && m.check_ids(old.map_uid, cur.map_uid)
}

fn range_within_reg(old: &RegState, cur: &RegState) -> bool {
    range_within(&old.s, &cur.s)
}

/// `regsafe`; `explore_alu_limits` compares scalars exactly.
fn regsafe(old: &RegState, cur: &RegState, m: &mut IdMap, exact: Exact, explore_alu_limits: bool) -> bool {
    if exact == Exact::Exact {
        return regs_exact(old, cur, m);
    }
    if old.typ == NOT_INIT {
        return true;
    }
    if old.typ != cur.typ {
        return false;
    }
    match base_type(old.typ) {
        SCALAR_VALUE => {
            if explore_alu_limits {
                return same_value(old, cur) && m.check_scalar_ids(old.id, cur.id);
            }
            if !old.precise && exact == Exact::NotExact {
                return true;
            }
            if old.id != 0 && (old.id & BPF_ADD_CONST) != (cur.id & BPF_ADD_CONST) {
                return false;
            }
            if old.id & BPF_ADD_CONST != 0 && old.delta != cur.delta {
                return false;
            }
            if !m.check_scalar_ids(old.id, cur.id) {
                return false;
            }
            range_within_reg(old, cur) && tnum_in(old.s.var_off, cur.s.var_off)
        }
        PTR_TO_MAP_KEY | PTR_TO_MAP_VALUE | PTR_TO_MEM | PTR_TO_BUF | PTR_TO_TP_BUFFER => {
            old.typ == cur.typ
                && old.delta == cur.delta
                && old.aux == cur.aux
                && old.aux2 == cur.aux2
                && range_within_reg(old, cur)
                && tnum_in(old.s.var_off, cur.s.var_off)
                && m.check_ids(old.id, cur.id)
                && m.check_ids(old.parent_id, cur.parent_id)
                && m.check_ids(old.map_uid, cur.map_uid)
        }
        PTR_TO_PACKET_META | PTR_TO_PACKET => {
            if old.range() < 0 || cur.range() < 0 {
                if old.range() != cur.range() {
                    return false;
                }
            } else if old.range() > cur.range() {
                return false;
            }
            if !m.check_ids(old.id, cur.id) {
                return false;
            }
            if old.id != 0 && old.s.r64.base != cur.s.r64.base {
                return false;
            }
            range_within_reg(old, cur) && tnum_in(old.s.var_off, cur.s.var_off)
        }
        PTR_TO_ARENA => true,
        _ => regs_exact(old, cur, m),
    }
}

/// Whether `regsafe` must fail whatever ids the two states map: the
/// register's type, or a compared scalar's value, differ. Most checkpoints
/// a state is compared to differ in a register, so `states_equal` looks
/// for that before any id map or reference bookkeeping.
#[inline]
fn reg_surely_unsafe(old: &RegState, cur: &RegState, exact: Exact, explore_alu_limits: bool) -> bool {
    if exact == Exact::Exact {
        return !same_value(old, cur);
    }
    if old.typ == NOT_INIT {
        return false;
    }
    if old.typ != cur.typ {
        return true;
    }
    if base_type(old.typ) != SCALAR_VALUE {
        return false;
    }
    if explore_alu_limits {
        return !same_value(old, cur);
    }
    if !old.precise && exact == Exact::NotExact {
        return false;
    }
    !(range_within_reg(old, cur) && tnum_in(old.s.var_off, cur.s.var_off))
}

fn unbound_reg() -> RegState {
    RegState::unknown_imprecise()
}

/// `scalar_reg_for_stack`.
fn scalar_reg_for_stack(s: &StackSlot, im: usize, allow_uninit: bool) -> Option<RegState> {
    if s.slot_type[im] == STACK_SPILL && s.spilled_ptr.typ == SCALAR_VALUE {
        return Some(s.spilled_ptr);
    }
    let misc = s.slot_type[im..].iter().all(|&t| t == STACK_MISC || ((t == STACK_INVALID || t == STACK_POISON) && allow_uninit));
    misc.then(unbound_reg)
}

/// `stacksafe`.
fn stacksafe(old: &FuncState, cur: &FuncState, m: &mut IdMap, exact: Exact, allow_uninit: bool, explore: bool) -> bool {
    let old_n = old.allocated_stack();
    let cur_n = cur.allocated_stack();
    let mut i = 0;
    while i < old_n {
        let im = i % BPF_REG_SIZE;
        let spi = i / BPF_REG_SIZE;
        let ot = old.stack[spi].slot_type[im];
        if exact == Exact::Exact {
            let norm = |t: u8| if t == STACK_POISON { STACK_INVALID } else { t };
            if i >= cur_n || norm(ot) != norm(cur.stack[spi].slot_type[im]) {
                return false;
            }
        }
        if ot == STACK_INVALID || ot == STACK_POISON || (allow_uninit && ot == STACK_MISC) {
            i += 1;
            continue;
        }
        if i >= cur_n {
            return false;
        }
        if im == 0 || im == 4 {
            let o = scalar_reg_for_stack(&old.stack[spi], im, allow_uninit);
            let c = scalar_reg_for_stack(&cur.stack[spi], im, allow_uninit);
            if let (Some(o), Some(c)) = (o, c) {
                if !regsafe(&o, &c, m, exact, explore) {
                    return false;
                }
                i += if im == 0 { BPF_REG_SIZE } else { 4 };
                continue;
            }
        }
        let ct = cur.stack[spi].slot_type[im];
        if ot == STACK_MISC && ct == STACK_ZERO {
            i += 1;
            continue;
        }
        if ot != ct {
            return false;
        }
        if im != BPF_REG_SIZE - 1 {
            i += 1;
            continue;
        }
        let (or, cr) = (&old.stack[spi].spilled_ptr, &cur.stack[spi].spilled_ptr);
        match old.stack[spi].slot_type[BPF_REG_SIZE - 1] {
            STACK_SPILL => {
                if !regsafe(or, cr, m, exact, explore) {
                    return false;
                }
            }
            STACK_DYNPTR => {
                if or.aux != cr.aux || or.aux2 != cr.aux2 || !m.check_ids(or.id, cr.id) || !m.check_ids(or.parent_id, cr.parent_id) {
                    return false;
                }
            }
            STACK_ITER => {
                // the depth only serves the infinite-loop check
                if or.typ != cr.typ || or.aux != cr.aux || or.iter_state() != cr.iter_state() || !m.check_ids(or.id, cr.id) {
                    return false;
                }
            }
            STACK_IRQ_FLAG => {
                if !m.check_ids(or.id, cr.id) || or.aux != cr.aux {
                    return false;
                }
            }
            STACK_MISC | STACK_ZERO | STACK_INVALID | STACK_POISON => {}
            _ => return false,
        }
        i += 1;
    }
    true
}

impl Env<'_, '_> {
    /// `states_equal`.
    fn states_equal(&self, old: &VerifierState, cur: &VerifierState, exact: Exact) -> bool {
        if old.curframe() != cur.curframe() {
            return false;
        }
        // the checks below are a conjunction whose value does not depend
        // on their order: a register that differs anyway settles it first
        for i in 0..=old.curframe() {
            let live = self.live_regs_before(old.frame_insn_idx(i));
            let (o, c) = (&old.frame[i].regs, &cur.frame[i].regs);
            let mut regs = live & ((1 << MAX_BPF_REG) - 1);
            while regs != 0 {
                let r = regs.trailing_zeros() as usize;
                regs &= regs - 1;
                if reg_surely_unsafe(&o[r], &c[r], exact, self.explore_alu_limits) {
                    return false;
                }
            }
        }
        let mut m = IdMap::new(self.id_gen);
        if old.speculative && !cur.speculative {
            return false;
        }
        if old.in_sleepable != cur.in_sleepable {
            return false;
        }
        if !refsafe(old, cur, &mut m) {
            return false;
        }
        for i in 0..=old.curframe() {
            let insn_idx = old.frame_insn_idx(i);
            if old.frame[i].callsite != cur.frame[i].callsite {
                return false;
            }
            if old.frame[i].callback_depth > cur.frame[i].callback_depth {
                return false;
            }
            let live = self.live_regs_before(insn_idx);
            let mut regs = live & ((1 << MAX_BPF_REG) - 1);
            while regs != 0 {
                let r = regs.trailing_zeros() as usize;
                regs &= regs - 1;
                if !regsafe(&old.frame[i].regs[r], &cur.frame[i].regs[r], &mut m, exact, self.explore_alu_limits) {
                    return false;
                }
            }
            if !stacksafe(&old.frame[i], &cur.frame[i], &mut m, exact, self.input.privs.allow_uninit_stack, self.explore_alu_limits) {
                return false;
            }
        }
        true
    }

    /// The registers live before `idx` (`live_regs_before` of its aux).
    #[inline]
    fn live_regs_before(&self, idx: usize) -> u16 {
        match (self.input.aux.get(idx), self.input.insns.get(idx)) {
            (Some(a), Some(_)) => a.live_regs_before,
            _ => 0,
        }
    }

    /// `clean_verifier_state` / `__clean_func_state`.
    fn clean_verifier_state(&mut self) {
        // the stack liveness query, built only when there is a stack
        let q = self.cur.frame.iter().any(|f| !f.stack.is_empty()).then(|| LiveQuery {
            insn_idx: self.cur.insn_idx,
            callsites: self.cur.frame.iter().skip(1).map(|f| f.callsite.max(0) as usize).collect(),
            subprogs: self.cur.frame.iter().map(|f| f.subprogno).collect(),
        });
        let n = self.cur.frame.len();
        for fr in 0..n {
            let ip = self.cur.frame_insn_idx(fr);
            let live = self.live_regs_before(ip);
            let liveness = self.input.liveness;
            let f = &mut self.cur.frame[fr];
            for r in 0..BPF_REG_FP {
                // only `__mark_reg_not_init` makes a NOT_INIT register: one
                // that is already is left as it is, not written again
                if live & (1 << r) == 0 && f.regs[r].typ != NOT_INIT {
                    f.regs[r] = RegState::not_init();
                }
                debug_assert!(live & (1 << r) != 0 || f.regs[r] == RegState::not_init(), "r{r}: NOT_INIT with other fields set");
            }
            let Some(q) = &q else { continue };
            let poisoned = StackSlot { spilled_ptr: RegState::not_init(), slot_type: [STACK_POISON; BPF_REG_SIZE] };
            for i in 0..f.stack.len() {
                // cleaning leaves these as they are whatever is alive: no
                // liveness query (the costly part of this walk)
                if f.stack[i] == poisoned || matches!(f.stack[i].slot_type[7], STACK_DYNPTR | STACK_ITER | STACK_IRQ_FLAG) {
                    continue;
                }
                let lo = liveness.stack_slot_alive(q, fr, i * 2);
                let hi = liveness.stack_slot_alive(q, fr, i * 2 + 1);
                if hi && lo {
                    continue;
                }
                let start = if !lo { 0 } else { 4 };
                let end = if !hi { 8 } else { 4 };
                let slot = &mut f.stack[i];
                let stype = slot.slot_type[7];
                if matches!(stype, STACK_DYNPTR | STACK_ITER | STACK_IRQ_FLAG) {
                    continue;
                }
                if !hi {
                    if lo && stype == STACK_SPILL {
                        if slot.spilled_ptr.typ != SCALAR_VALUE || slot.spilled_ptr.is_null() {
                            continue;
                        }
                        for j in 0..4 {
                            if slot.slot_type[j] == STACK_SPILL {
                                slot.slot_type[j] = STACK_MISC;
                            }
                        }
                    }
                    slot.spilled_ptr = RegState::not_init();
                }
                for j in start..end {
                    slot.slot_type[j] = STACK_POISON;
                }
            }
        }
    }

    /// `states_maybe_looping`.
    fn states_maybe_looping(old: &VerifierState, cur: &VerifierState) -> bool {
        if old.curframe() != cur.curframe() {
            return false;
        }
        let (fo, fc) = (old.cur(), cur.cur());
        (0..MAX_BPF_REG).all(|i| {
            let (a, b) = (&fo.regs[i], &fc.regs[i]);
            same_value(a, b) && a.id == b.id && a.parent_id == b.parent_id && a.map_uid == b.map_uid
        })
    }

    /// `compute_scc_callchain`: `None` when no frame of `st` is in an SCC.
    fn compute_scc_callchain(&self, st: &VerifierState) -> Option<Callchain> {
        let mut cc = Callchain { callsites: [0; MAX_CALL_FRAMES - 1], scc: 0 };
        for i in 0..=st.curframe() {
            let insn_idx = st.frame_insn_idx(i);
            let scc = self.info(insn_idx).scc;
            if scc != 0 {
                cc.scc = scc;
                return Some(cc);
            }
            if i < st.curframe() {
                if let Some(c) = cc.callsites.get_mut(i) {
                    *c = insn_idx as u32;
                }
            } else {
                return None;
            }
        }
        None
    }

    /// `scc_visit_lookup`.
    fn scc_visit_lookup(&self, cc: &Callchain) -> Option<usize> {
        self.scc.visits.get(cc.scc as usize)?.iter().position(|v| v.callchain == *cc)
    }

    fn scc_visit_mut(&mut self, cc: &Callchain, i: usize) -> &mut SccVisit {
        &mut self.scc.visits.get_mut(cc.scc as usize).expect("looked-up visit")[i]
    }

    fn state_of(&self, which: StateRef) -> &VerifierState {
        match which {
            StateRef::Cur => &self.cur,
            StateRef::Checkpoint(c) => &self.checkpoints[c].state,
        }
    }

    /// `maybe_enter_scc` for the new checkpoint `c`.
    fn maybe_enter_scc(&mut self, c: usize) {
        let Some(cc) = self.compute_scc_callchain(&self.checkpoints[c].state) else { return };
        let i = match self.scc_visit_lookup(&cc) {
            Some(i) => i,
            None => {
                let k = cc.scc as usize;
                if self.scc.visits.len() <= k {
                    self.scc.visits.resize_with(k + 1, Vec::new);
                }
                let v = &mut self.scc.visits[k];
                v.push(SccVisit { callchain: cc, entry_state: None, backedges: Vec::new(), num_backedges: 0 });
                v.len() - 1
            }
        };
        let lvl2 = self.level() & BPF_LOG_LEVEL2 != 0;
        let v = self.scc_visit_mut(&cc, i);
        if v.entry_state.is_none() {
            v.entry_state = Some(c);
            if lvl2 {
                self.verbose(&format!("SCC enter {}\n", cc.format()));
            }
        }
    }

    /// `maybe_exit_scc`: when the entry checkpoint of a visit has no
    /// paths left, the visit ends and its back-edges are settled.
    pub(crate) fn maybe_exit_scc(&mut self, which: StateRef) -> VResult<()> {
        let st = self.state_of(which);
        let speculative = st.speculative;
        let Some(cc) = self.compute_scc_callchain(st) else { return Ok(()) };
        let Some(i) = self.scc_visit_lookup(&cc) else {
            // a path can only stop inside an SCC at a checkpoint of it
            if !speculative {
                self.verbose(&format!("verifier bug: scc exit: no visit info for call chain {}\n", cc.format()));
                return errno(EFAULT);
            }
            return Ok(());
        };
        let StateRef::Checkpoint(c) = which else { return Ok(()) };
        if self.scc_visit_mut(&cc, i).entry_state != Some(c) {
            return Ok(());
        }
        if self.level() & BPF_LOG_LEVEL2 != 0 {
            self.verbose(&format!("SCC exit {}\n", cc.format()));
        }
        let v = self.scc_visit_mut(&cc, i);
        v.entry_state = None;
        let n = std::mem::take(&mut v.num_backedges);
        self.num_backedges = self.num_backedges.saturating_sub(n);
        self.update_peak_states();
        self.propagate_backedges(&cc, i)
    }

    /// `add_scc_backedge`: `backedge` matched checkpoint `c`, which is in
    /// an SCC with an open visit.
    fn add_scc_backedge(&mut self, c: usize, backedge: VerifierState) -> VResult<()> {
        let Some(cc) = self.compute_scc_callchain(&self.checkpoints[c].state) else {
            let s = format!("verifier bug: add backedge: no SCC in verification path, insn_idx {}\n", self.checkpoints[c].state.insn_idx);
            self.verbose(&s);
            return errno(EFAULT);
        };
        let Some(i) = self.scc_visit_lookup(&cc) else {
            self.verbose(&format!("verifier bug: add backedge: no visit info for call chain {}\n", cc.format()));
            return errno(EFAULT);
        };
        if self.level() & BPF_LOG_LEVEL2 != 0 {
            self.verbose(&format!("SCC backedge {}\n", cc.format()));
        }
        let v = self.scc_visit_mut(&cc, i);
        v.backedges.push(backedge);
        v.num_backedges += 1;
        self.num_backedges += 1;
        self.update_peak_states();
        Ok(())
    }

    /// `incomplete_read_marks`: a state of an SCC visit that still has
    /// unsettled back-edges.
    #[inline]
    fn incomplete_read_marks(&self, st: &VerifierState) -> bool {
        // `num_backedges` counts the back-edges of all open visits
        self.num_backedges != 0 && self.visit_has_backedges(st)
    }

    fn visit_has_backedges(&self, st: &VerifierState) -> bool {
        let Some(cc) = self.compute_scc_callchain(st) else { return false };
        self.scc.visits.get(cc.scc as usize).is_some_and(|vs| vs.iter().any(|v| v.callchain == cc && !v.backedges.is_empty()))
    }

    /// `propagate_backedges`: precision marks of each back-edge's equal
    /// checkpoint are propagated along the back-edge's own path until
    /// nothing changes; then the back-edges are dropped.
    fn propagate_backedges(&mut self, cc: &Callchain, i: usize) -> VResult<()> {
        let backedges = std::mem::take(&mut self.scc_visit_mut(cc, i).backedges);
        let mut iter = 0;
        loop {
            let over = iter > MAX_BACKEDGE_ITERS;
            iter += 1;
            if over {
                if self.level() & BPF_LOG_LEVEL2 != 0 {
                    self.verbose("propagate_backedges: too many iterations\n");
                }
                for b in backedges.iter().rev() {
                    self.mark_all_scalars_precise(b.parent, b.curframe());
                }
                break;
            }
            let mut changed = false;
            for b in backedges.iter().rev() {
                let Some(eq) = b.equal_state else { continue };
                self.propagate_precision(eq, Some(b), &mut changed)?;
            }
            if !changed {
                break;
            }
        }
        for b in backedges {
            self.state_pool.recycle(b);
        }
        Ok(())
    }

    /// `maybe_free_verifier_state`: a checkpoint on the free list with no
    /// paths left and settled marks is gone.
    fn maybe_free_verifier_state(&mut self, c: usize) {
        let (in_free, listed, branches) = {
            let ck = &self.checkpoints[c];
            (ck.in_free_list, ck.listed, ck.state.branches)
        };
        if !in_free || !listed || branches != 0 || self.incomplete_read_marks(&self.checkpoints[c].state) {
            return;
        }
        self.checkpoints[c].listed = false;
        self.checkpoints.release(c);
        self.free_list_size = self.free_list_size.saturating_sub(1);
    }

    /// `bpf_update_branch_counts` for the path that just ended: each state
    /// up the parent chain whose last path this was is done.
    pub(crate) fn update_branch_counts(&mut self) -> VResult<()> {
        self.cur.branches = self.cur.branches.saturating_sub(1);
        if self.cur.branches > 0 {
            return Ok(());
        }
        self.maybe_exit_scc(StateRef::Cur)?;
        let mut next = self.cur.parent;
        while let Some(c) = next {
            let ck = &mut self.checkpoints[c];
            ck.state.branches = ck.state.branches.saturating_sub(1);
            if ck.state.branches > 0 {
                break;
            }
            self.maybe_exit_scc(StateRef::Checkpoint(c))?;
            next = self.checkpoints[c].state.parent;
            self.maybe_free_verifier_state(c);
        }
        Ok(())
    }

    /// `iter_active_depths_differ`: an active iterator went around once
    /// more, which is not an infinite loop.
    fn iter_active_depths_differ(old: &VerifierState, cur: &VerifierState) -> bool {
        for fr in (0..=old.curframe()).rev() {
            for (i, s) in old.frame[fr].stack.iter().enumerate() {
                if s.slot_type[0] != STACK_ITER || s.spilled_ptr.iter_state() != super::kfuncs::BPF_ITER_STATE_ACTIVE {
                    continue;
                }
                let cd = cur.frame.get(fr).and_then(|f| f.stack.get(i)).map(|c| c.spilled_ptr.iter_depth());
                if cd != Some(s.spilled_ptr.iter_depth()) {
                    return true;
                }
            }
        }
        false
    }

    fn update_peak_states(&mut self) {
        let cur = self.explored_states_size + self.free_list_size + self.num_backedges;
        self.stats.peak_states = self.stats.peak_states.max(cur);
    }

    /// `bpf_is_state_visited`: true when the current state is covered by a
    /// stored checkpoint (prune); may store a new checkpoint.
    pub(crate) fn is_state_visited(&mut self, insn_idx: usize) -> VResult<bool> {
        let info = self.info(insn_idx);
        let force_new = self.input.test_state_freq || info.force_checkpoint || self.cur.jmp_history.len() > 40;
        let mut add_new = force_new;
        if self.jmps_processed - self.prev_jmps_processed >= 2 && self.stats.insn_processed - self.prev_insn_processed >= 8 {
            add_new = true;
        }
        self.clean_verifier_state();
        let mut states_cnt = 0usize;
        let bucket = self.explored_bucket(insn_idx);
        self.prefetch_bucket(bucket, insn_idx);
        // walk the bucket in place; an evicted checkpoint leaves it at `k`
        let mut k = 0;
        while let Some(&ci) = self.explored.get(bucket).and_then(|l| l.get(k)) {
            k += 1;
            // the bucket is shared with other insns (and call sites)
            states_cnt += 1;
            if self.checkpoints[ci].state.insn_idx != insn_idx {
                continue;
            }
            let (branches, in_loop_marks) = {
                let c = &self.checkpoints[ci];
                (c.state.branches, self.incomplete_read_marks(&c.state))
            };
            let mut hit = false;
            let mut is_loop = false;
            let mut goto_hit = false;
            if branches > 0 {
                // an open-coded loop of may_goto: the same state one
                // may_goto deeper has converged
                if is_may_goto_insn(&self.insn(insn_idx)) {
                    let old = &self.checkpoints[ci].state;
                    if old.may_goto_depth != self.cur.may_goto_depth && self.states_equal(old, &self.cur, Exact::RangeWithin) {
                        is_loop = true;
                        hit = true;
                    }
                }
            }
            if hit {
            } else if branches > 0 {
                let old = &self.checkpoints[ci].state;
                let ofr = old.cur();
                let is_may_goto = self.insn(insn_idx).code == (bpf_isa::insn::op::BPF_JMP | bpf_isa::insn::op::BPF_JCOND);
                // a new entry into an async callback is not a loop
                let skip_inf = ofr.in_async_callback_fn && ofr.async_entry_cnt != self.cur.cur().async_entry_cnt;
                let mut check_inf = !skip_inf;
                if check_inf && self.aux.get(insn_idx).is_some_and(|a| a.is_iter_next) {
                    check_inf = false;
                    if self.states_equal(old, &self.cur, Exact::RangeWithin) {
                        // the iterator argument is valid: the states are equal
                        let r1 = self.regs()[1];
                        let fr = r1.frameno().min(self.cur.curframe());
                        let spi = get_spi(r1.s.var_off.value as i64).max(0) as usize;
                        let st = self.cur.frame[fr].stack.get(spi).map_or(0, |s| s.spilled_ptr.iter_state());
                        goto_hit = st == super::kfuncs::BPF_ITER_STATE_ACTIVE;
                    }
                }
                if check_inf && is_may_goto && old.may_goto_depth != self.cur.may_goto_depth && self.states_equal(old, &self.cur, Exact::RangeWithin) {
                    check_inf = false;
                    goto_hit = true;
                }
                if check_inf && self.calls_callback(insn_idx) {
                    check_inf = false;
                    goto_hit = self.states_equal(old, &self.cur, Exact::RangeWithin);
                }
                if check_inf
                    && Self::states_maybe_looping(old, &self.cur)
                    && self.states_equal(old, &self.cur, Exact::Exact)
                    && !Self::iter_active_depths_differ(old, &self.cur)
                    && old.may_goto_depth == self.cur.may_goto_depth
                    && old.callback_unroll_depth == self.cur.callback_unroll_depth
                {
                    self.verbose_linfo(insn_idx, "; ");
                    self.verbose(&format!("infinite loop detected at insn {insn_idx}\n"));
                    self.verbose("cur state:");
                    self.print_cur_state(true);
                    self.verbose("old state:");
                    let mut s = String::new();
                    let f = self.cur.curframe();
                    super::print::print_verifier_state(&mut s, &self.checkpoints[ci].state, f, true, &self.scratch, &self.maps);
                    self.verbose(&s);
                    return errno(EINVAL);
                }
                if goto_hit {
                    hit = true;
                    is_loop = true;
                } else if !force_new && self.jmps_processed - self.prev_jmps_processed < 20 && self.stats.insn_processed - self.prev_insn_processed < 100 {
                    add_new = false;
                }
            } else {
                is_loop = in_loop_marks;
                let exact = if is_loop { Exact::RangeWithin } else { Exact::NotExact };
                hit = self.states_equal(&self.checkpoints[ci].state, &self.cur, exact);
            }
            if hit {
                self.checkpoints[ci].hit_cnt += 1;
                if self.info(self.insn_idx).jmp_point {
                    self.push_jmp_history(0, 0, 0, 0);
                }
                let mut changed = false;
                self.propagate_precision(ci, None, &mut changed)?;
                if is_loop {
                    let mut b = self.state_pool.copy_of(&self.cur);
                    b.equal_state = Some(ci);
                    b.insn_idx = insn_idx;
                    self.add_scc_backedge(ci, b)?;
                }
                return Ok(true);
            }
            // miss
            let c = &mut self.checkpoints[ci];
            if add_new {
                c.miss_cnt += 1;
            }
            let n = if info.force_checkpoint && c.state.branches > 0 { 64 } else { 3 };
            if c.miss_cnt > c.hit_cnt * n + n {
                c.in_free_list = true;
                k -= 1;
                if let Some(l) = self.explored.get_mut(bucket) {
                    l.remove(k);
                }
                self.free_list_size += 1;
                self.explored_states_size = self.explored_states_size.saturating_sub(1);
                self.maybe_free_verifier_state(ci);
            }
        }
        if self.stats.max_states_per_insn < states_cnt as u32 {
            self.stats.max_states_per_insn = states_cnt as u32;
        }
        if !self.bpf_capable() && states_cnt > BPF_COMPLEXITY_LIMIT_STATES {
            return Ok(false);
        }
        if !add_new {
            return Ok(false);
        }
        self.stats.total_states += 1;
        self.explored_states_size += 1;
        self.update_peak_states();
        self.prev_jmps_processed = self.jmps_processed;
        self.prev_insn_processed = self.stats.insn_processed;
        if self.bpf_capable() {
            for f in self.cur.frame.iter_mut() {
                for r in f.regs.iter_mut().take(BPF_REG_FP) {
                    if r.typ == SCALAR_VALUE {
                        r.precise = false;
                    }
                }
                for s in f.stack.iter_mut() {
                    if s.is_spilled_reg() && s.spilled_ptr.typ == SCALAR_VALUE {
                        s.spilled_ptr.precise = false;
                    }
                }
            }
        }
        self.clear_singular_ids();
        let id = self.checkpoints.push(&self.cur);
        self.checkpoints[id].state.insn_idx = insn_idx;
        self.maybe_enter_scc(id);
        self.cur.parent = Some(id);
        self.cur.first_insn_idx = insn_idx;
        self.cur.dfs_depth = self.checkpoints[id].state.dfs_depth + 1;
        self.cur.jmp_history.clear();
        self.cur_hist_ent = None;
        if let Some(l) = self.explored.get_mut(bucket) {
            l.insert(0, id);
        }
        Ok(false)
    }

    /// Asks the memory system for the checkpoints of `bucket` all at once
    /// (the head of each and the registers the comparison reads first):
    /// they are mostly cold when a path comes back to their insn, and
    /// walking the bucket would otherwise wait for each in turn.
    #[inline]
    fn prefetch_bucket(&self, bucket: usize, insn_idx: usize) {
        let Some(l) = self.explored.get(bucket) else { return };
        let live = self.live_regs_before(insn_idx) & ((1 << MAX_BPF_REG) - 1);
        let first = (live.trailing_zeros() as usize).min(MAX_BPF_REG - 2);
        for &ci in l {
            let c = &self.checkpoints[ci];
            prefetch(c);
            let regs = &c.state.frame.last().regs;
            prefetch(&regs[first]);
            prefetch(&regs[first + 1]);
        }
    }

    /// `bpf_explored_state`: the hash bucket of `idx` for the current
    /// frame's call site (`state_htab_size` is the program's length).
    pub(crate) fn explored_bucket(&self, idx: usize) -> usize {
        let n = self.explored.len().max(1) as u32;
        let callsite = self.cur.cur().callsite as i32;
        ((idx as i32 ^ callsite) as u32 % n) as usize
    }

    /// `find_prev_entry`: the nearest checkpoint at `insn_idx` still on the
    /// path of `cur` (a previous entry into the same loop).
    pub(crate) fn find_prev_entry(&self, cur: &VerifierState, insn_idx: usize) -> Option<usize> {
        self.explored.get(self.explored_bucket(insn_idx))?.iter().copied().find(|&c| {
            let st = &self.checkpoints[c].state;
            st.insn_idx == insn_idx && st.branches > 0 && same_callsites(st, cur) && st.dfs_depth < cur.dfs_depth
        })
    }

    /// `bpf_clear_singular_ids`.
    fn clear_singular_ids(&mut self) {
        let mut cnt: HashMap<u32, u32> = HashMap::new();
        for f in &self.cur.frame {
            for r in f.regs.iter().chain(f.stack.iter().filter(|s| s.is_spilled_reg()).map(|s| &s.spilled_ptr)) {
                if r.typ == SCALAR_VALUE && r.id != 0 {
                    *cnt.entry(r.id & !BPF_ADD_CONST).or_default() += 1;
                }
            }
        }
        for f in self.cur.frame.iter_mut() {
            let FuncState { regs, stack, .. } = f;
            for r in regs.iter_mut() {
                if r.typ == SCALAR_VALUE && r.id != 0 && cnt.get(&(r.id & !BPF_ADD_CONST)) == Some(&1) {
                    r.clear_scalar_id();
                }
            }
            for s in stack.iter_mut() {
                if s.is_spilled_reg() {
                    let r = &mut s.spilled_ptr;
                    if r.typ == SCALAR_VALUE && r.id != 0 && cnt.get(&(r.id & !BPF_ADD_CONST)) == Some(&1) {
                        r.clear_scalar_id();
                    }
                }
            }
        }
    }

    /// `propagate_precision`: scalars precise in checkpoint `old` must be
    /// precise along the path of `cur` (`None`: the current state) too.
    fn propagate_precision(&mut self, old: usize, cur: Option<&VerifierState>, changed: &mut bool) -> VResult<()> {
        let lvl2 = self.level() & BPF_LOG_LEVEL2 != 0;
        let mut text = String::new();
        {
            let old = &self.checkpoints[old].state;
            for fr in (0..=old.curframe()).rev() {
                let st = &old.frame[fr];
                let mut first = true;
                for i in 0..BPF_REG_FP {
                    let r = &st.regs[i];
                    if r.typ != SCALAR_VALUE || !r.precise {
                        continue;
                    }
                    if lvl2 {
                        text.push_str(&if first { format!("frame {fr}: propagating r{i}") } else { format!(",r{i}") });
                    }
                    self.bt.reg_masks[fr & 15] |= 1 << i;
                    first = false;
                }
                for (i, s) in st.stack.iter().enumerate() {
                    if !s.is_spilled_reg() || s.spilled_ptr.typ != SCALAR_VALUE || !s.spilled_ptr.precise {
                        continue;
                    }
                    let off = (-(i as i64) - 1) * 8;
                    if lvl2 {
                        text.push_str(&if first { format!("frame {fr}: propagating fp{off}") } else { format!(",fp{off}") });
                    }
                    self.bt.stack_masks[fr & 15] |= 1u64 << (i & 63);
                    first = false;
                }
                if !first && lvl2 {
                    text.push('\n');
                }
            }
        }
        self.verbose(&text);
        self.bpf_mark_chain_precision(cur, changed)
    }
}

/// `same_callsites`.
pub(crate) fn same_callsites(a: &VerifierState, b: &VerifierState) -> bool {
    a.curframe() == b.curframe() && a.frame.iter().zip(&b.frame).all(|(x, y)| x.callsite == y.callsite)
}

/// `maybe_widen_reg`: an imprecise scalar that changed since the loop's
/// previous entry becomes unknown.
fn maybe_widen_reg(old: &RegState, cur: &mut RegState, bpf_capable: bool) {
    if old.typ != SCALAR_VALUE || old.typ != cur.typ {
        return;
    }
    if old.precise || cur.precise || same_value(old, cur) {
        return;
    }
    *cur = RegState::unknown(bpf_capable);
}

/// `widen_imprecise_scalars`.
pub(crate) fn widen_imprecise_scalars(old: &VerifierState, cur: &mut VerifierState, bpf_capable: bool) {
    for fr in (0..=old.curframe()).rev() {
        let (Some(fold), Some(fcur)) = (old.frame.get(fr), cur.frame.get_mut(fr)) else { continue };
        for (o, c) in fold.regs.iter().zip(fcur.regs.iter_mut()) {
            maybe_widen_reg(o, c, bpf_capable);
        }
        for (o, c) in fold.stack.iter().zip(fcur.stack.iter_mut()) {
            if o.is_spilled_reg() && c.is_spilled_reg() {
                maybe_widen_reg(&o.spilled_ptr, &mut c.spilled_ptr, bpf_capable);
            }
        }
    }
}

/// `refsafe`: the same references, locks and critical sections.
fn refsafe(old: &VerifierState, cur: &VerifierState, m: &mut IdMap) -> bool {
    // nothing held on either side: nothing to map
    if old.refs.is_empty()
        && cur.refs.is_empty()
        && (old.active_locks, old.active_preempt_locks, old.active_rcu_locks, old.active_irq_id, old.active_lock_id, old.active_lock_ptr) == (0, 0, 0, 0, 0, 0)
        && (cur.active_locks, cur.active_preempt_locks, cur.active_rcu_locks, cur.active_irq_id, cur.active_lock_id, cur.active_lock_ptr) == (0, 0, 0, 0, 0, 0)
    {
        return true;
    }
    if old.refs.len() != cur.refs.len()
        || old.active_locks != cur.active_locks
        || old.active_preempt_locks != cur.active_preempt_locks
        || old.active_rcu_locks != cur.active_rcu_locks
    {
        return false;
    }
    if !m.check_ids(old.active_irq_id, cur.active_irq_id) {
        return false;
    }
    if !m.check_ids(old.active_lock_id, cur.active_lock_id) || old.active_lock_ptr != cur.active_lock_ptr {
        return false;
    }
    for (o, c) in old.refs.iter().zip(cur.refs.iter()) {
        if !m.check_ids(o.id, c.id) || o.typ != c.typ {
            return false;
        }
        match o.typ {
            REF_TYPE_PTR => {
                if !m.check_ids(o.parent_or_ptr as u32, c.parent_or_ptr as u32) {
                    return false;
                }
            }
            REF_TYPE_IRQ => {}
            _ => {
                if o.parent_or_ptr != c.parent_or_ptr {
                    return false;
                }
            }
        }
    }
    true
}

/// A hint to load `p`'s cache line: it changes no result.
#[inline(always)]
fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing into the program and cannot fault
    // (and `p` is a valid reference anyway)
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

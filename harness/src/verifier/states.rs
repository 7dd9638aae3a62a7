//! State pruning (`kernel/bpf/states.c`): `bpf_is_state_visited`,
//! `states_equal` / `regsafe` / `stacksafe`, `clean_verifier_state`, the
//! infinite-loop check and checkpoint bookkeeping.
//!
//! Simplified for now: the SCC machinery only tracks whether a loop's
//! checkpoints may have incomplete read marks; back-edge precision
//! propagation (`propagate_backedges`) is not modelled.

use std::collections::HashMap;

use super::do_check::*;
use super::reg::*;
use super::scalar::*;
use super::state::*;
use super::tnum::*;

/// `BPF_COMPLEXITY_LIMIT_STATES`.
const BPF_COMPLEXITY_LIMIT_STATES: usize = 64;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Exact {
    NotExact,
    Exact,
    RangeWithin,
}

/// `struct bpf_scc_visit` per SCC (main frame only).
#[derive(Debug, Default)]
pub struct SccState {
    /// scc id -> (entry checkpoint, number of back-edges seen)
    visits: HashMap<u32, (Option<usize>, u32)>,
}

/// `struct bpf_idmap`.
struct IdMap {
    map: Vec<(u32, u32)>,
    tmp_id_gen: u32,
}

impl IdMap {
    /// `check_ids`.
    fn check_ids(&mut self, old: u32, cur: u32) -> bool {
        if (old != 0) != (cur != 0) {
            return false;
        }
        if old == 0 {
            return true;
        }
        for &(o, c) in &self.map {
            if o == old {
                return c == cur;
            }
            if c == cur {
                return false;
            }
        }
        self.map.push((old, cur));
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
    a.typ == b.typ && a.delta == b.delta && a.aux == b.aux && a.s == b.s
}

fn regs_exact(old: &RegState, cur: &RegState, m: &mut IdMap) -> bool {
    same_value(old, cur) && m.check_ids(old.id, cur.id) && m.check_ids(old.parent_id, cur.parent_id) && m.check_ids(old.map_uid, cur.map_uid)
}

fn range_within_reg(old: &RegState, cur: &RegState) -> bool {
    range_within(&old.s, &cur.s)
}

/// `regsafe`.
fn regsafe(old: &RegState, cur: &RegState, m: &mut IdMap, exact: Exact) -> bool {
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

fn unbound_reg() -> RegState {
    RegState::unknown_imprecise()
}

/// `scalar_reg_for_stack`.
fn scalar_reg_for_stack(s: &StackSlot, im: usize, allow_uninit: bool) -> Option<RegState> {
    if s.slot_type[im] == STACK_SPILL && s.spilled_ptr.typ == SCALAR_VALUE {
        return Some(s.spilled_ptr);
    }
    let misc = s.slot_type[im..]
        .iter()
        .all(|&t| t == STACK_MISC || ((t == STACK_INVALID || t == STACK_POISON) && allow_uninit));
    misc.then(unbound_reg)
}

/// `stacksafe`.
fn stacksafe(old: &FuncState, cur: &FuncState, m: &mut IdMap, exact: Exact, allow_uninit: bool) -> bool {
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
                if !regsafe(&o, &c, m, exact) {
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
        match old.stack[spi].slot_type[BPF_REG_SIZE - 1] {
            STACK_SPILL => {
                if !regsafe(&old.stack[spi].spilled_ptr, &cur.stack[spi].spilled_ptr, m, exact) {
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
        let mut m = IdMap { map: Vec::new(), tmp_id_gen: self.id_gen };
        if old.speculative && !cur.speculative {
            return false;
        }
        if old.in_sleepable != cur.in_sleepable {
            return false;
        }
        for i in 0..=old.curframe() {
            let insn_idx = old.frame_insn_idx(i);
            if old.frame[i].callsite != cur.frame[i].callsite {
                return false;
            }
            let live = self.info(insn_idx).live_regs_before;
            for r in 0..MAX_BPF_REG {
                if live & (1 << r) != 0 && !regsafe(&old.frame[i].regs[r], &cur.frame[i].regs[r], &mut m, exact) {
                    return false;
                }
            }
            if !stacksafe(&old.frame[i], &cur.frame[i], &mut m, exact, self.input.privs.allow_uninit_stack) {
                return false;
            }
        }
        true
    }

    /// `clean_verifier_state` / `__clean_func_state`.
    fn clean_verifier_state(&mut self) {
        let q = LiveQuery {
            insn_idx: self.cur.insn_idx,
            callsites: self.cur.frame.iter().skip(1).map(|f| f.callsite.max(0) as usize).collect(),
        };
        let n = self.cur.frame.len();
        for fr in 0..n {
            let ip = self.cur.frame_insn_idx(fr);
            let live = self.info(ip).live_regs_before;
            let liveness = self.input.liveness;
            let f = &mut self.cur.frame[fr];
            for r in 0..BPF_REG_FP {
                if live & (1 << r) == 0 {
                    f.regs[r] = RegState::not_init();
                }
            }
            for i in 0..f.stack.len() {
                let lo = liveness.stack_slot_alive(&q, fr, i * 2);
                let hi = liveness.stack_slot_alive(&q, fr, i * 2 + 1);
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

    /// SCC of the state's innermost frame position (main frame only).
    fn scc_of(&self, st: &VerifierState) -> u32 {
        self.info(st.frame_insn_idx(0)).scc
    }

    /// `incomplete_read_marks`.
    fn incomplete_read_marks(&self, st: &VerifierState) -> bool {
        let scc = self.scc_of(st);
        scc != 0 && self.scc.visits.get(&scc).is_some_and(|v| v.1 > 0)
    }

    /// `maybe_exit_scc` for checkpoint `c` whose branches reached zero.
    pub(crate) fn maybe_exit_scc(&mut self, c: usize) -> VResult<()> {
        let scc = self.scc_of(&self.checkpoints[c].state);
        if scc == 0 {
            return Ok(());
        }
        let Some(v) = self.scc.visits.get_mut(&scc) else { return Ok(()) };
        if v.0 != Some(c) {
            return Ok(());
        }
        v.0 = None;
        self.num_backedges -= v.1.min(self.num_backedges);
        v.1 = 0;
        if self.level() & BPF_LOG_LEVEL2 != 0 {
            self.verbose(&format!("SCC exit (scc {scc})\n"));
        }
        Ok(())
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
        let list = self.explored.get(insn_idx).cloned().unwrap_or_default();
        for ci in list {
            states_cnt += 1;
            let (branches, in_loop_marks) = {
                let c = &self.checkpoints[ci];
                (c.state.branches, self.incomplete_read_marks(&c.state))
            };
            let mut hit = false;
            let mut is_loop = false;
            if branches > 0 {
                let old = &self.checkpoints[ci].state;
                if Self::states_maybe_looping(old, &self.cur)
                    && self.states_equal(old, &self.cur, Exact::Exact)
                    && old.may_goto_depth == self.cur.may_goto_depth
                    && old.callback_unroll_depth == self.cur.callback_unroll_depth
                {
                    self.verbose(&format!("infinite loop detected at insn {insn_idx}\n"));
                    self.verbose("cur state:");
                    self.print_cur_state(true);
                    self.verbose("old state:");
                    let mut s = String::new();
                    let f = self.cur.curframe();
                    super::print::print_verifier_state(&mut s, &self.checkpoints[ci].state, f, true, &self.scratch, self.input.maps);
                    self.verbose(&s);
                    return errno(EINVAL);
                }
                if !force_new && self.jmps_processed - self.prev_jmps_processed < 20 && self.stats.insn_processed - self.prev_insn_processed < 100 {
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
                self.propagate_precision(ci)?;
                if is_loop {
                    let scc = self.scc_of(&self.checkpoints[ci].state);
                    if let Some(v) = self.scc.visits.get_mut(&scc) {
                        v.1 += 1;
                        self.num_backedges += 1;
                    }
                    self.update_peak_states();
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
                if let Some(l) = self.explored.get_mut(insn_idx) {
                    l.retain(|&x| x != ci);
                }
                self.free_list_size += 1;
                self.explored_states_size = self.explored_states_size.saturating_sub(1);
                if c.state.branches == 0 {
                    c.listed = false;
                    self.free_list_size -= 1;
                }
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
        let mut new = self.cur.clone();
        new.insn_idx = insn_idx;
        let id = self.checkpoints.len();
        // maybe_enter_scc
        let scc = self.scc_of(&new);
        if scc != 0 {
            let v = self.scc.visits.entry(scc).or_insert((None, 0));
            if v.0.is_none() {
                v.0 = Some(id);
                if self.level() & BPF_LOG_LEVEL2 != 0 {
                    self.verbose(&format!("SCC enter (scc {scc})\n"));
                }
            }
        }
        self.checkpoints.push(Checkpoint { state: new, miss_cnt: 0, hit_cnt: 0, in_free_list: false, listed: true });
        self.cur.parent = Some(id);
        self.cur.first_insn_idx = insn_idx;
        self.cur.dfs_depth += 1;
        self.cur.jmp_history.clear();
        self.cur_hist_ent = None;
        if let Some(l) = self.explored.get_mut(insn_idx) {
            l.insert(0, id);
        }
        Ok(false)
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

    /// `propagate_precision`: scalars precise in the matched checkpoint
    /// must be precise along the current path too.
    fn propagate_precision(&mut self, ci: usize) -> VResult<()> {
        self.bt_reset();
        self.bt.frame = self.cur.curframe();
        let lvl2 = self.level() & BPF_LOG_LEVEL2 != 0;
        let old = self.checkpoints[ci].state.clone();
        let mut text = String::new();
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
                self.bt.reg_masks[fr] |= 1 << i;
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
                self.bt.stack_masks[fr] |= 1u64 << (i & 63);
                first = false;
            }
            if !first && lvl2 {
                text.push('\n');
            }
        }
        self.verbose(&text);
        self.mark_chain_precision_batch()
    }
}

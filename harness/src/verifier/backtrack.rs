//! Precision tracking (`kernel/bpf/backtrack.c`): `bpf_mark_chain_precision`
//! walks the jump history of the current state and of its checkpoints
//! backwards, from a scalar whose exact value mattered to where it came
//! from, and marks it precise in the checkpoints (the `mark_precise:` lines
//! of a level-2 log).

use bpf_isa::insn::op::*;

use super::do_check::*;
use super::reg::*;
use super::state::*;

/// `struct backtrack_state`.
#[derive(Clone, Debug, Default)]
pub struct BacktrackState {
    pub frame: usize,
    pub reg_masks: [u32; 16],
    pub stack_masks: [u64; 16],
}

impl BacktrackState {
    fn empty(&self) -> bool {
        (0..=self.frame.min(15)).all(|f| self.reg_masks[f] == 0 && self.stack_masks[f] == 0)
    }
    fn reg_set(&self, r: usize) -> bool {
        self.reg_masks[self.frame & 15] & (1 << r) != 0
    }
    fn set_reg(&mut self, r: usize) {
        self.reg_masks[self.frame & 15] |= 1 << r;
    }
    fn clear_reg(&mut self, r: usize) {
        self.reg_masks[self.frame & 15] &= !(1 << r);
    }
}

enum Bt {
    Ok,
    NotSupp,
}

impl Env<'_, '_> {
    pub(crate) fn bt_reset(&mut self) {
        self.bt = BacktrackState::default();
    }

    /// `mark_chain_precision`.
    pub(crate) fn mark_chain_precision(&mut self, regno: usize) -> VResult<()> {
        if !self.bpf_capable() {
            return Ok(());
        }
        self.bt_reset();
        self.bt.frame = self.cur.curframe();
        if self.regs()[regno].typ != SCALAR_VALUE {
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

    /// `backtrack_insn`.
    fn backtrack_insn(&mut self, idx: usize, hist: Option<JmpHistEntry>) -> VResult<Bt> {
        let insn = self.insn(idx);
        if insn.code == 0 {
            return Ok(Bt::Ok);
        }
        if self.level() & BPF_LOG_LEVEL2 != 0 {
            let f = self.bt.frame;
            let s = format!(
                "mark_precise: frame{f}: regs={} stack={} before {idx}: {}\n",
                fmt_reg_mask(self.bt.reg_masks[f & 15]),
                fmt_stack_mask(self.bt.stack_masks[f & 15]),
                self.insn_text(idx)
            );
            self.verbose(&s);
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
                if insn.mode() == BPF_ATOMIC && insn.imm & BPF_FETCH != 0 {
                    let load = if insn.imm == BPF_CMPXCHG { 0 } else { sreg };
                    if self.bt.reg_set(load) {
                        self.bt.clear_reg(load);
                        if let Some(h) = hist
                            && h.flags & INSN_F_STACK_ACCESS != 0
                        {
                            self.bt.stack_masks[h.frame as usize & 15] |= 1u64 << (h.spi & 63);
                        }
                        return Ok(Bt::Ok);
                    }
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
                if opcode == BPF_CALL || opcode == BPF_EXIT {
                    return Err(DoCheckError::Unsupported("backtracking through calls is not modelled yet".into()));
                }
                if insn.is_src_x() && opcode != BPF_JA {
                    if !self.bt.reg_set(dreg) && !self.bt.reg_set(sreg) {
                        return Ok(Bt::Ok);
                    }
                    if !hist.is_some_and(|h| h.flags & INSN_F_SRC_REG_STACK != 0) {
                        self.bt.set_reg(sreg);
                    }
                    if !hist.is_some_and(|h| h.flags & INSN_F_DST_REG_STACK != 0) {
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
            }
        }
        self.bt_sync_linked_regs(hist);
        Ok(Bt::Ok)
    }

    /// `bpf_bt_sync_linked_regs`.
    fn bt_sync_linked_regs(&mut self, hist: Option<JmpHistEntry>) {
        let Some(h) = hist else { return };
        if h.linked_regs == 0 {
            return;
        }
        let regs = super::jmp::linked_regs_unpack(h.linked_regs);
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
        if self.bt.empty() {
            return Ok(());
        }
        let mut first_idx = self.cur.first_insn_idx as i64;
        let mut last_idx = self.cur.insn_idx as i64;
        let mut subseq_idx: i64 = -1;
        let mut skip_first = true;
        // None: the current state; Some(i): checkpoint i
        let mut st: Option<usize> = None;
        let mut guard = 0u64;
        loop {
            if self.level() & BPF_LOG_LEVEL2 != 0 {
                let s = format!("mark_precise: frame{}: last_idx {last_idx} first_idx {first_idx} subseq_idx {subseq_idx} \n", self.bt.frame);
                self.verbose(&s);
            }
            if last_idx < 0 {
                return errno(EFAULT);
            }
            let hist_vec: Vec<JmpHistEntry> = match st {
                None => self.cur.jmp_history.clone(),
                Some(c) => self.checkpoints[c].state.jmp_history.clone(),
            };
            let mut history = hist_vec.len();
            let mut i = last_idx;
            loop {
                guard += 1;
                if guard > 10_000_000 {
                    return errno(EFAULT);
                }
                if skip_first {
                    skip_first = false;
                } else {
                    let h = if history > 0 && hist_vec[history - 1].idx as i64 == i { Some(hist_vec[history - 1]) } else { None };
                    match self.backtrack_insn(i as usize, h)? {
                        Bt::Ok => {}
                        Bt::NotSupp => {
                            self.mark_all_scalars_precise(st);
                            self.bt_reset();
                            return Ok(());
                        }
                    }
                }
                if self.bt.empty() {
                    return Ok(());
                }
                subseq_idx = i;
                let _ = subseq_idx;
                // get_prev_insn_idx
                if i == first_idx && (history == 0 || (history == 1 && hist_vec[0].idx as i64 == i)) {
                    break;
                }
                if history > 0 && hist_vec[history - 1].idx as i64 == i {
                    i = hist_vec[history - 1].prev_idx as i64;
                    history -= 1;
                } else {
                    i -= 1;
                }
                if i < 0 || i as usize >= self.input.insns.len() {
                    return errno(EFAULT);
                }
            }
            let parent = match st {
                None => self.cur.parent,
                Some(c) => self.checkpoints[c].state.parent,
            };
            let Some(p) = parent else { break };
            st = Some(p);
            for fr in (0..=self.bt.frame).rev() {
                let Some(func) = self.checkpoints[p].state.frame.get_mut(fr) else { continue };
                for r in 0..32 {
                    if self.bt.reg_masks[fr] & (1 << r) == 0 {
                        continue;
                    }
                    let Some(reg) = func.regs.get_mut(r) else { continue };
                    if reg.typ != SCALAR_VALUE || reg.precise {
                        self.bt.reg_masks[fr] &= !(1 << r);
                    } else {
                        reg.precise = true;
                    }
                }
                for s in 0..64 {
                    if self.bt.stack_masks[fr] & (1u64 << s) == 0 {
                        continue;
                    }
                    let Some(slot) = func.stack.get_mut(s) else { return errno(EFAULT) };
                    if !slot.is_spilled_scalar_reg() || slot.spilled_ptr.precise {
                        self.bt.stack_masks[fr] &= !(1u64 << s);
                    } else {
                        slot.spilled_ptr.precise = true;
                    }
                }
                if self.level() & BPF_LOG_LEVEL2 != 0 {
                    let mut s = format!(
                        "mark_precise: frame{fr}: parent state regs={} stack={}: ",
                        fmt_reg_mask(self.bt.reg_masks[fr]),
                        fmt_stack_mask(self.bt.stack_masks[fr])
                    );
                    let sc = super::print::Scratch::default();
                    super::print::print_verifier_state(&mut s, &self.checkpoints[p].state, fr, true, &sc, self.input.maps);
                    self.verbose(&s);
                }
            }
            if self.bt.empty() {
                return Ok(());
            }
            subseq_idx = first_idx;
            last_idx = self.checkpoints[p].state.last_insn_idx;
            first_idx = self.checkpoints[p].state.first_insn_idx as i64;
        }
        if !self.bt.empty() {
            self.mark_all_scalars_precise(None);
            self.bt_reset();
        }
        Ok(())
    }

    /// `bpf_mark_all_scalars_precise`: every scalar of every checkpoint
    /// above the starting state.
    fn mark_all_scalars_precise(&mut self, start: Option<usize>) {
        if self.level() & BPF_LOG_LEVEL2 != 0 {
            let s = format!("mark_precise: frame{}: falling back to forcing all scalars precise\n", self.cur.curframe());
            self.verbose(&s);
        }
        let mut p = match start {
            None => self.cur.parent,
            Some(c) => self.checkpoints[c].state.parent,
        };
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

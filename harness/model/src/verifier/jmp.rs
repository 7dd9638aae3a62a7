//! Conditional jumps: `check_cond_jmp_op`, `is_branch_taken` for pointers,
//! the packet-pointer comparisons (`try_match_pkt_pointers`,
//! `find_good_pkt_pointers`, `mark_pkt_end`), null checks
//! (`mark_ptr_or_null_regs`) and linked scalars (`collect_linked_regs`,
//! `sync_linked_regs`).

use bpf_isa::Insn;
use bpf_isa::insn::op::*;

use super::do_check::*;
use super::reg::*;
use super::scalar::branch::{BranchRegs, flip_opcode, scalar_branch_decided, simulate_both_branches_taken};
use super::scalar::*;
use super::state::*;
use super::tnum::*;

/// `MAX_PACKET_OFF`.
const MAX_PACKET_OFF: u64 = 0xffff;
/// `LINKED_REGS_MAX`.
const LINKED_REGS_MAX: usize = 5;

/// One register or spilled slot sharing a scalar id (`struct linked_reg`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LinkedReg {
    pub frameno: usize,
    pub regno_or_spi: usize,
    pub is_reg: bool,
}

/// `linked_regs_pack`.
pub(crate) fn linked_regs_pack(regs: &[LinkedReg]) -> u64 {
    let mut val: u64 = 0;
    for e in regs {
        let tmp = (e.frameno as u64 & 0xf) | ((e.regno_or_spi as u64 & 0x3f) << 4) | ((e.is_reg as u64) << 10);
        val = (val << 11) | tmp;
    }
    (val << 4) | regs.len() as u64
}

/// `linked_regs_unpack`.
pub(crate) fn linked_regs_unpack(mut val: u64) -> Vec<LinkedReg> {
    let cnt = (val & 0xf) as usize;
    val >>= 4;
    let mut v = Vec::with_capacity(cnt);
    for _ in 0..cnt.min(LINKED_REGS_MAX) {
        v.push(LinkedReg { frameno: (val & 0xf) as usize, regno_or_spi: ((val >> 4) & 0x3f) as usize, is_reg: (val >> 10) & 1 != 0 });
        val >>= 11;
    }
    v
}

/// `is_pkt_ptr_branch_taken`.
fn is_pkt_ptr_branch_taken(dst: &RegState, src: &RegState, mut opcode: u8) -> Option<bool> {
    let pkt = if src.typ == PTR_TO_PACKET_END {
        dst
    } else if dst.typ == PTR_TO_PACKET_END {
        opcode = flip_opcode(opcode);
        src
    } else {
        return None;
    };
    if pkt.range() >= 0 {
        return None;
    }
    match opcode {
        BPF_JLE | BPF_JGT if pkt.range() == BEYOND_PKT_END => Some(opcode == BPF_JGT),
        BPF_JLT | BPF_JGE if pkt.range() == BEYOND_PKT_END || pkt.range() == AT_PKT_END => Some(opcode == BPF_JGE),
        _ => None,
    }
}

/// `reg_not_null`: pointer types that cannot be NULL (the base cannot,
/// and an offset within `BPF_MAX_VAR_OFF` cannot wrap it to zero).
fn reg_not_null(r: &RegState, referenced: bool) -> bool {
    let t = r.typ;
    if type_may_be_null(t) {
        return false;
    }
    if r.s.smin() <= -BPF_MAX_VAR_OFF || r.s.smax() >= BPF_MAX_VAR_OFF {
        return false;
    }
    let trusted_btf = base_type(t) == PTR_TO_BTF_ID
        && (referenced || (t & (PTR_TRUSTED | MEM_ALLOC) != 0 && t & (PTR_UNTRUSTED | PTR_MAYBE_NULL | MEM_RCU | NON_OWN_REF) == 0));
    matches!(
        base_type(t),
        PTR_TO_SOCKET | PTR_TO_TCP_SOCK | PTR_TO_XDP_SOCK | PTR_TO_BUF | PTR_TO_MAP_VALUE | PTR_TO_MAP_KEY | PTR_TO_SOCK_COMMON | CONST_PTR_TO_MAP
    ) || trusted_btf
        || (base_type(t) == PTR_TO_MEM && t & PTR_UNTRUSTED == 0)
}

/// `reg_is_init_pkt_pointer`.
fn reg_is_init_pkt_pointer(r: &RegState, which: RegType) -> bool {
    r.typ == which && r.id == 0 && tnum_equals_const(r.s.var_off, 0)
}

/// `find_good_pkt_pointers`.
fn find_good_pkt_pointers(st: &mut VerifierState, dst: &RegState, t: RegType, right_open: bool) {
    let umax = dst.s.umax();
    if umax == 0 && right_open {
        return;
    }
    if umax > MAX_PACKET_OFF {
        return;
    }
    let mut new_range = umax as i64;
    if right_open {
        new_range += 1;
    }
    for f in st.frame.iter_mut() {
        for r in f.regs.iter_mut() {
            if r.typ == t && r.id == dst.id {
                r.aux = r.aux.max(new_range);
            }
        }
        for s in f.stack.iter_mut() {
            if s.is_spilled_reg() && s.spilled_ptr.typ == t && s.spilled_ptr.id == dst.id {
                s.spilled_ptr.aux = s.spilled_ptr.aux.max(new_range);
            }
        }
    }
}

/// `mark_pkt_end`.
fn mark_pkt_end(st: &mut VerifierState, regno: usize, range_open: bool) {
    let r = &mut st.cur_mut().regs[regno];
    if r.typ != PTR_TO_PACKET {
        return;
    }
    r.aux = if range_open { BEYOND_PKT_END } else { AT_PKT_END };
}

impl Env<'_, '_> {
    /// `is_branch_taken`.
    fn is_branch_taken(
        &self,
        r1: &RegState,
        r2: &RegState,
        opcode: u8,
        is_jmp32: bool,
        same_reg: bool,
    ) -> (Option<bool>, Option<super::scalar::branch::BranchRegs>) {
        if r1.is_pkt_pointer_any() && r2.is_pkt_pointer_any() && !is_jmp32 {
            return (is_pkt_ptr_branch_taken(r1, r2, opcode), None);
        }
        if r1.is_pointer() || r2.is_pointer() {
            if is_jmp32 {
                return (None, None);
            }
            let (mut a, mut b, mut op) = (r1, r2, opcode);
            if !(b.typ == SCALAR_VALUE && tnum_is_const(b.s.var_off)) {
                op = flip_opcode(op);
                std::mem::swap(&mut a, &mut b);
            }
            if !(b.typ == SCALAR_VALUE && tnum_is_const(b.s.var_off)) {
                return (None, None);
            }
            if !reg_not_null(a, self.reg_is_referenced(a)) || b.s.var_off.value != 0 {
                return (None, None);
            }
            return (
                match op {
                    BPF_JEQ => Some(false),
                    BPF_JNE => Some(true),
                    _ => None,
                },
                None,
            );
        }
        // most jumps the bounds decide: no copies of the edges' registers
        // (unused when the branch is known)
        if let Some(taken) = scalar_branch_decided(&r1.s, &r2.s, same_reg, opcode, is_jmp32) {
            return (taken, taken.is_none().then(|| BranchRegs::new(&r1.s, &r2.s)));
        }
        let mut regs = BranchRegs::new(&r1.s, &r2.s);
        let pred = simulate_both_branches_taken(&mut regs, opcode, is_jmp32);
        (pred, Some(regs))
    }

    /// `collect_linked_regs`.
    fn collect_linked_regs(&mut self, id: u32, out: &mut Vec<LinkedReg>) {
        let id = id & !BPF_ADD_CONST;
        for i in (0..=self.cur.curframe()).rev() {
            let live = self.info(self.cur.frame_insn_idx(i)).live_regs_before;
            let f = &mut self.cur.frame[i];
            for j in 0..BPF_REG_FP {
                if live & (1 << j) == 0 {
                    continue;
                }
                Self::collect_one(out, &mut f.regs[j], id, i, j, true);
            }
            for (j, s) in f.stack.iter_mut().enumerate() {
                if s.is_spilled_reg() {
                    Self::collect_one(out, &mut s.spilled_ptr, id, i, j, false);
                }
            }
        }
    }

    /// `__collect_linked_regs`: past `LINKED_REGS_MAX`, a register sharing
    /// the id loses it (the compared one too).
    fn collect_one(out: &mut Vec<LinkedReg>, r: &mut RegState, id: u32, frameno: usize, n: usize, is_reg: bool) {
        if r.typ != SCALAR_VALUE || r.id & !BPF_ADD_CONST != id {
            return;
        }
        // no deduplication: a jump comparing two registers of one id (even
        // a register with itself) collects them all twice, as 7.3 does, and
        // may run out of room sooner
        let e = LinkedReg { frameno, regno_or_spi: n, is_reg };
        if out.len() < LINKED_REGS_MAX {
            out.push(e);
        } else {
            r.clear_scalar_id();
        }
    }

    /// `sync_linked_regs` on `st` given the register that was refined.
    fn sync_linked_regs(st: &mut VerifierState, known: &RegState, linked: &[LinkedReg], scratch: &mut super::print::Scratch) {
        for e in linked {
            let Some(f) = st.frame.get_mut(e.frameno) else { continue };
            let reg = if e.is_reg {
                match f.regs.get_mut(e.regno_or_spi) {
                    Some(r) => r,
                    None => continue,
                }
            } else {
                match f.stack.get_mut(e.regno_or_spi) {
                    Some(s) => &mut s.spilled_ptr,
                    None => continue,
                }
            };
            if reg.typ != SCALAR_VALUE || *reg == *known {
                // the kernel skips the refined register itself (pointer
                // identity); an identical copy needs no update either
                if reg.typ == SCALAR_VALUE && *reg == *known {
                    if e.is_reg {
                        scratch.mark_reg(e.regno_or_spi);
                    } else {
                        scratch.mark_slot(e.regno_or_spi);
                    }
                }
                continue;
            }
            if reg.id & !BPF_ADD_CONST != known.id & !BPF_ADD_CONST {
                continue;
            }
            if (reg.id ^ known.id) & BPF_ADD_CONST == BPF_ADD_CONST {
                continue;
            }
            if (reg.id & BPF_ADD_CONST == 0 && known.id & BPF_ADD_CONST == 0) || reg.delta == known.delta {
                *reg = *known;
            } else {
                let (saved_off, saved_id) = (reg.delta, reg.id);
                let add32 = (reg.id | known.id) & BPF_ADD_CONST32 != 0;
                *reg = *known;
                reg.s = sync_linked_scalar(&known.s, saved_off as i64 - known.delta as i64, add32);
                reg.delta = saved_off;
                reg.id = saved_id;
            }
            if e.is_reg {
                scratch.mark_reg(e.regno_or_spi);
            } else {
                scratch.mark_slot(e.regno_or_spi);
            }
        }
    }

    /// `check_cond_jmp_op`.
    pub(crate) fn check_cond_jmp_op(&mut self, insn: &Insn) -> VResult<Next> {
        let opcode = insn.opcode();
        if opcode == BPF_JA || opcode > BPF_JCOND {
            self.verbose(&format!("invalid BPF_JMP/JMP32 opcode {opcode:x}\n"));
            return errno(EINVAL);
        }
        if opcode == BPF_JCOND {
            return self.check_may_goto(insn);
        }
        let (dst, src) = (insn.dst as usize, insn.src as usize);
        self.check_reg_src(dst)?;
        let mut dst_reg = self.regs()[dst];
        let mut flags = 0;
        let mut src_reg = if insn.is_src_x() {
            self.check_reg_src(src)?;
            let s = self.regs()[src];
            if !(dst_reg.is_pkt_pointer_any() && s.is_pkt_pointer_any()) && self.is_pointer_value(src) {
                self.verbose(&format!("R{src} pointer comparison prohibited\n"));
                return errno(EACCES);
            }
            if s.typ == PTR_TO_STACK {
                flags |= INSN_F_SRC_REG_STACK;
            }
            if dst_reg.typ == PTR_TO_STACK {
                flags |= INSN_F_DST_REG_STACK;
            }
            s
        } else {
            if dst_reg.typ == PTR_TO_STACK {
                flags |= INSN_F_DST_REG_STACK;
            }
            RegState::known(insn.imm as i64 as u64)
        };
        if flags != 0 {
            self.push_jmp_history(flags, 0, 0, 0);
        }
        let mut linked = Vec::new();
        if insn.is_src_x() && src_reg.typ == SCALAR_VALUE && src_reg.id != 0 {
            self.collect_linked_regs(src_reg.id, &mut linked);
        }
        if dst_reg.typ == SCALAR_VALUE && dst_reg.id != 0 {
            self.collect_linked_regs(dst_reg.id, &mut linked);
        }
        // what collecting cleared shows in the compared registers too
        {
            let f = &self.cur.frame[self.cur.curframe()];
            if dst_reg.typ == SCALAR_VALUE && f.regs[dst].id == 0 {
                dst_reg.id = 0;
            }
            if insn.is_src_x() && src_reg.typ == SCALAR_VALUE && f.regs[src].id == 0 {
                src_reg.id = 0;
            }
        }
        let is_jmp32 = insn.class() == BPF_JMP32;
        let same = insn.is_src_x() && src == dst;
        let (pred, bregs) = self.is_branch_taken(&dst_reg, &src_reg, opcode, is_jmp32, same);
        if let Some(taken) = pred {
            if !dst_reg.is_pointer() {
                self.mark_chain_precision(dst)?;
            }
            if insn.is_src_x() && !src_reg.is_pointer() {
                self.mark_chain_precision(src)?;
            }
            if !self.input.privs.bypass_spec_v1 {
                // the edge not taken may still run speculatively
                let idx = self.insn_idx;
                let other = if taken { idx + 1 } else { (idx as i64 + insn.off as i64 + 1).max(0) as usize };
                self.sanitize_speculative_path(Some(insn), other, idx)?;
            }
            if self.level() & BPF_LOG_LEVEL != 0 {
                self.print_insn_state();
            }
            if taken {
                let t = self.insn_idx as i64 + insn.off as i64 + 1;
                self.insn_idx = t.max(0) as usize;
                return Ok(Next::Updated);
            }
            return Ok(Next::Fallthrough);
        }
        if linked.len() > 1 {
            let packed = linked_regs_pack(&linked);
            self.push_jmp_history(0, 0, 0, packed);
        }
        let target = (self.insn_idx as i64 + insn.off as i64 + 1).max(0) as usize;
        let idx = self.insn_idx;
        let oi = self.push_stack(target, idx, false)?;
        let mut other = std::mem::take(&mut self.stack[oi].st);
        // refined registers of both edges
        let (mut f1, mut f2, mut t1, mut t2) = (dst_reg, src_reg, dst_reg, src_reg);
        if let Some(b) = bregs {
            f1.s = b.false_reg1;
            f2.s = b.false_reg2;
            t1.s = b.true_reg1;
            t2.s = b.true_reg2;
            for (r, n) in [(&f1, "false_reg1"), (&f2, "false_reg2"), (&t1, "true_reg1"), (&t2, "true_reg2")] {
                if r.typ == SCALAR_VALUE
                    && let Err(m) = reg_bounds_sanity_check(&r.s, n)
                    && self.input.test_reg_invariants
                {
                    self.stack[oi].st = other;
                    self.verbose(&format!("verifier bug: {m}\n"));
                    return errno(EFAULT);
                }
            }
        }
        self.regs_mut()[dst] = f1;
        if insn.is_src_x() {
            self.regs_mut()[src] = f2;
        }
        other.cur_mut().regs[dst] = t1;
        if insn.is_src_x() {
            other.cur_mut().regs[src] = t2;
        }
        if insn.is_src_x() && src_reg.typ == SCALAR_VALUE && src_reg.id != 0 {
            let k = self.regs()[src];
            Self::sync_linked_regs(&mut self.cur, &k, &linked, &mut self.scratch);
            let k = other.cur().regs[src];
            let mut dummy = super::print::Scratch::default();
            Self::sync_linked_regs(&mut other, &k, &linked, &mut dummy);
        }
        if dst_reg.typ == SCALAR_VALUE && dst_reg.id != 0 {
            let k = self.regs()[dst];
            Self::sync_linked_regs(&mut self.cur, &k, &linked, &mut self.scratch);
            let k = other.cur().regs[dst];
            let mut dummy = super::print::Scratch::default();
            Self::sync_linked_regs(&mut other, &k, &linked, &mut dummy);
        }
        // a maybe-NULL pointer compared to one that is not NULL
        if !is_jmp32
            && insn.is_src_x()
            && src_reg.is_pointer()
            && dst_reg.is_pointer()
            && base_type(src_reg.typ) != PTR_TO_BTF_ID
            && base_type(dst_reg.typ) != PTR_TO_BTF_ID
        {
            let eq_this = match opcode {
                BPF_JEQ => Some(false),
                BPF_JNE => Some(true),
                _ => None,
            };
            if let Some(this) = eq_this {
                let dst_nn = reg_not_null(&dst_reg, self.reg_is_referenced(&dst_reg));
                let src_nn = reg_not_null(&src_reg, self.reg_is_referenced(&src_reg));
                let regs = if this { &mut self.cur.cur_mut().regs } else { &mut other.cur_mut().regs };
                if dst_nn && type_may_be_null(src_reg.typ) {
                    regs[src].typ &= !PTR_MAYBE_NULL;
                }
                if src_nn && type_may_be_null(dst_reg.typ) {
                    regs[dst].typ &= !PTR_MAYBE_NULL;
                }
            }
        }
        let mut res = Ok(());
        if !is_jmp32
            && (opcode == BPF_JEQ || opcode == BPF_JNE)
            && type_may_be_null(dst_reg.typ)
            && ((!insn.is_src_x() && insn.imm == 0) || (insn.is_src_x() && src_reg.is_null()))
        {
            if insn.is_src_x() {
                res = self.mark_chain_precision(src);
            }
            if res.is_ok() {
                let unpriv = !self.bpf_capable();
                Self::mark_ptr_or_null_regs(&mut self.cur, dst, opcode == BPF_JNE, unpriv);
                Self::mark_ptr_or_null_regs(&mut other, dst, opcode == BPF_JEQ, unpriv);
            }
        } else if !self.try_match_pkt_pointers(insn, &dst_reg, &src_reg, &mut other) && self.is_pointer_value(dst) {
            self.verbose(&format!("R{dst} pointer comparison prohibited\n"));
            res = errno(EACCES);
        }
        self.stack[oi].st = other;
        res?;
        if self.level() & BPF_LOG_LEVEL != 0 {
            self.print_insn_state();
        }
        Ok(Next::Fallthrough)
    }

    /// `sanitize_speculative_path`: explore `next_idx` as a speculative
    /// path, with the compared registers unknown there.
    pub(crate) fn sanitize_speculative_path(&mut self, insn: Option<&Insn>, next_idx: usize, curr_idx: usize) -> VResult<usize> {
        let i = self.push_stack(next_idx, curr_idx, true)?;
        if let Some(insn) = insn {
            let u = self.unknown_reg();
            if let Some(e) = self.stack.get_mut(i) {
                let regs = &mut e.st.cur_mut().regs;
                if let Some(r) = regs.get_mut(insn.dst as usize) {
                    *r = u;
                }
                if insn.is_src_x()
                    && let Some(r) = regs.get_mut(insn.src as usize)
                {
                    *r = u;
                }
            }
        }
        Ok(i)
    }

    /// The `may_goto` case of `check_cond_jmp_op`: the jump is taken and
    /// the fall-through queued one `may_goto` deeper, its imprecise
    /// scalars widened against the loop's previous entry so that the
    /// iterations converge.
    fn check_may_goto(&mut self, insn: &Insn) -> VResult<Next> {
        let idx = self.insn_idx;
        let prev = self.cur.parent.and_then(|p| self.find_prev_entry(&self.checkpoints[p].state, idx));
        let qi = self.push_stack(idx + 1, idx, false)?;
        let cap = self.bpf_capable();
        if let Some(e) = self.stack.get_mut(qi) {
            e.st.may_goto_depth += 1;
            if let Some(prev) = prev {
                super::states::widen_imprecise_scalars(&self.checkpoints[prev].state, &mut e.st, cap);
            }
        }
        let t = idx as i64 + insn.off as i64 + 1;
        if t < 0 {
            return errno(EFAULT);
        }
        self.insn_idx = t as usize;
        Ok(Next::Updated)
    }

    /// `try_match_pkt_pointers`.
    fn try_match_pkt_pointers(&mut self, insn: &Insn, dst: &RegState, src: &RegState, other: &mut VerifierState) -> bool {
        if !insn.is_src_x() || insn.class() == BPF_JMP32 {
            return false;
        }
        let (dn, sn) = (insn.dst as usize, insn.src as usize);
        let dst_left =
            (dst.typ == PTR_TO_PACKET && src.typ == PTR_TO_PACKET_END) || (dst.typ == PTR_TO_PACKET_META && reg_is_init_pkt_pointer(src, PTR_TO_PACKET));
        let src_left =
            (dst.typ == PTR_TO_PACKET_END && src.typ == PTR_TO_PACKET) || (reg_is_init_pkt_pointer(dst, PTR_TO_PACKET) && src.typ == PTR_TO_PACKET_META);
        if !dst_left && !src_left {
            return false;
        }
        // (the branch that learns the range, open range, the branch marked at/beyond end)
        let this = &mut self.cur;
        match insn.opcode() {
            BPF_JGT => {
                if dst_left {
                    find_good_pkt_pointers(this, dst, dst.typ, false);
                    mark_pkt_end(other, dn, true);
                } else {
                    find_good_pkt_pointers(other, src, src.typ, true);
                    mark_pkt_end(this, sn, false);
                }
            }
            BPF_JLT => {
                if dst_left {
                    find_good_pkt_pointers(other, dst, dst.typ, true);
                    mark_pkt_end(this, dn, false);
                } else {
                    find_good_pkt_pointers(this, src, src.typ, false);
                    mark_pkt_end(other, sn, true);
                }
            }
            BPF_JGE => {
                if dst_left {
                    find_good_pkt_pointers(this, dst, dst.typ, true);
                    mark_pkt_end(other, dn, false);
                } else {
                    find_good_pkt_pointers(other, src, src.typ, false);
                    mark_pkt_end(this, sn, true);
                }
            }
            BPF_JLE => {
                if dst_left {
                    find_good_pkt_pointers(other, dst, dst.typ, false);
                    mark_pkt_end(this, dn, true);
                } else {
                    find_good_pkt_pointers(this, src, src.typ, true);
                    mark_pkt_end(other, sn, false);
                }
            }
            _ => return false,
        }
        true
    }
}

//! Stack liveness before the main pass (`kernel/bpf/liveness.c`).
//!
//! `bpf_compute_subprog_arg_access`: a forward data flow per subprogram
//! that follows frame-pointer-derived values (`arg_track`: which frame,
//! which offsets) through registers and spills, across bpf-to-bpf calls
//! (each callee analysed per call site and depth, a "func instance"),
//! and records which stack slots each insn may read (`use`) or must
//! write (`def`), in 4-byte half slots. The main pass asks it whether a
//! slot is alive. At log level 2 it prints what it found.
//!
//! Also the call summaries it shares with the register liveness of
//! [`super::live_registers`] (which runs it) and the fastcall marking:
//! `bpf_get_call_summary` and how many stack bytes a call's argument
//! reads or writes.

use super::state::MAX_BPF_STACK;
use std::collections::HashMap;
use std::rc::Rc;

use bpf_isa::Insn;
use bpf_isa::helper_ids::BPF_FUNC_MAX_ID;
use bpf_isa::op::*;

use super::cfg::bpf_insn_successors;
use super::do_check::{LiveQuery, StackLiveness};
use super::env::*;
use super::errno::*;
use super::log::{BPF_LOG_LEVEL2, bpf_vlog_alignment};
use super::{Fail, PResult};
use crate::limits::MAX_CALL_FRAMES;

// ---------------------------------------------------------------- spis_t

/// `spis_t`: one bit per 4-byte half slot of the 512-byte stack, bit 0 is
/// the half slot nearest the frame pointer... rather `2 * spi` is the low
/// (deeper) half of slot `spi` (`fp-(spi+1)*8`), `2 * spi + 1` the high one.
type Spis = u128;
const STACK_SLOTS: u32 = 128;
const STACK_SLOT_SZ: i64 = 4;
const SPIS_ALL: Spis = u128::MAX;

fn spis_or_range(mask: &mut Spis, lo: i64, hi: i64) {
    let mut w = lo.max(0);
    while w <= hi && w < STACK_SLOTS as i64 {
        *mask |= 1u128 << w;
        w += 1;
    }
}

fn spis_test_bit(s: Spis, bit: u32) -> bool {
    bit < 128 && s & (1u128 << bit) != 0
}

// ---------------------------------------------------------------- instances

/// `struct per_frame_masks`.
#[derive(Clone, Copy, Default)]
struct PerFrameMasks {
    may_read: Spis,
    must_write: Spis,
    live_before: Spis,
}

/// `struct func_instance`: a subprogram analysed for one call site and depth.
struct FuncInstance {
    callsite: usize,
    depth: usize,
    subprog: usize,
    subprog_start: usize,
    insn_cnt: usize,
    frames: Vec<Option<Vec<PerFrameMasks>>>,
    must_write_initialized: bool,
}

impl FuncInstance {
    fn new(callsite: usize, depth: usize, subprog: usize, subprog_start: usize, insn_cnt: usize) -> FuncInstance {
        FuncInstance { callsite, depth, subprog, subprog_start, insn_cnt, frames: vec![None; MAX_CALL_FRAMES], must_write_initialized: false }
    }

    fn fresh(&self) -> FuncInstance {
        FuncInstance::new(self.callsite, self.depth, self.subprog, self.subprog_start, self.insn_cnt)
    }

    fn rel(&self, insn_idx: usize) -> Option<usize> {
        insn_idx.checked_sub(self.subprog_start).filter(|&r| r < self.insn_cnt)
    }

    /// `get_frame_masks`.
    fn get(&self, frame: usize, insn_idx: usize) -> Option<&PerFrameMasks> {
        let r = self.rel(insn_idx)?;
        self.frames.get(frame)?.as_ref()?.get(r)
    }

    /// `alloc_frame_masks`.
    fn alloc(&mut self, frame: usize, insn_idx: usize) -> Option<&mut PerFrameMasks> {
        let r = self.rel(insn_idx)?;
        let n = self.insn_cnt;
        let arr = self.frames.get_mut(frame)?.get_or_insert_with(|| vec![PerFrameMasks::default(); n]);
        arr.get_mut(r)
    }

    /// `mark_stack_read`.
    fn mark_read(&mut self, frame: usize, insn_idx: usize, mask: Spis) {
        if let Some(m) = self.alloc(frame, insn_idx) {
            m.may_read |= mask;
        }
    }

    /// `mark_stack_write`.
    fn mark_write(&mut self, frame: usize, insn_idx: usize, mask: Spis) {
        if let Some(m) = self.alloc(frame, insn_idx) {
            m.must_write |= mask;
        }
    }
}

// ---------------------------------------------------------------- arg_track

const ARG_NONE: i8 = -1;
const ARG_UNVISITED: i8 = -2;
const ARG_IMPRECISE: i8 = -3;
const MAX_ARG_OFFSETS: usize = 4;
/// Callee stack slots fp-8 .. fp-512 that spills are tracked in.
const MAX_ARG_SPILL_SLOTS: usize = 64;
/// `MAX_STACK_ARG_SLOTS`: arguments 6..12 of 7.3's stack-argument calls.
const MAX_STACK_ARG_SLOTS: usize = 7;
pub(super) const MAX_BPF_FUNC_REG_ARGS: usize = 5;
/// r0-r10, then the outgoing stack-argument slots.
const MAX_AT_TRACK_REGS: usize = MAX_BPF_REG as usize + MAX_STACK_ARG_SLOTS;
const FP: usize = BPF_REG_FP as usize;

/// The spill tracking of one insn's input, shared while unchanged.
type StackRow = Rc<[At; MAX_ARG_SPILL_SLOTS]>;

/// The register tracking of one insn.
type AtRow = [At; MAX_AT_TRACK_REGS];

/// `at_in` of one subprogram's analysis: one row id per insn into rows
/// shared while unchanged. Most insns change no frame-derived register,
/// so an insn costs 4 bytes here, not a 216-byte row (copied at every
/// step and, on large programs, most of the analysis's memory traffic).
struct AtRows {
    ids: Vec<u32>,
    /// Row 0 is all unvisited; a row is never changed once pushed.
    rows: Vec<AtRow>,
}

const UNVISITED_ROW: u32 = 0;

impl AtRows {
    fn new(len: usize) -> AtRows {
        AtRows { ids: vec![UNVISITED_ROW; len], rows: vec![[UNVISITED; MAX_AT_TRACK_REGS]] }
    }

    fn push(&mut self, row: AtRow) -> u32 {
        self.rows.push(row);
        (self.rows.len() - 1) as u32
    }

    /// The row of the `i`-th insn of the subprogram.
    fn get(&self, i: usize) -> &AtRow {
        &self.rows[self.ids[i] as usize]
    }

    fn len(&self) -> usize {
        self.ids.len()
    }
}

/// `struct arg_track`: a value derived from frame `frame`'s pointer at one
/// of `off[..off_cnt]` (no offsets: somewhere in that frame), from some
/// frame of `mask` (`ARG_IMPRECISE`), or from no frame pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct At {
    frame: i8,
    off_cnt: u8,
    off: [i16; MAX_ARG_OFFSETS],
    mask: u16,
}

const NONE: At = At { frame: ARG_NONE, off_cnt: 0, off: [0; 4], mask: 0 };
const UNVISITED: At = At { frame: ARG_UNVISITED, off_cnt: 0, off: [0; 4], mask: 0 };

fn frame_only(frame: i8) -> At {
    At { frame, ..NONE }
}

fn imprecise(mask: u16) -> At {
    At { frame: ARG_IMPRECISE, mask, ..NONE }
}

/// `arg_single`.
fn arg_single(frame: i8, off: i16) -> At {
    At { frame, off_cnt: 1, off: [off, 0, 0, 0], mask: 0 }
}

fn is_visited(a: &At) -> bool {
    a.frame != ARG_UNVISITED
}

fn is_fp(a: &At) -> bool {
    a.frame >= 0 || a.frame == ARG_IMPRECISE
}

/// `arg_track_eq`.
fn at_eq(a: &At, b: &At) -> bool {
    if a.frame != b.frame {
        return false;
    }
    if a.frame == ARG_IMPRECISE {
        return a.mask == b.mask;
    }
    if a.frame < 0 {
        return true;
    }
    a.off_cnt == b.off_cnt && a.off[..a.off_cnt as usize] == b.off[..b.off_cnt as usize]
}

/// Two rows the same value by value (`at_eq` on each): joining one into
/// the other changes nothing.
fn at_row_eq(a: &[At; MAX_AT_TRACK_REGS], b: &[At; MAX_AT_TRACK_REGS]) -> bool {
    a.iter().zip(b).all(|(x, y)| at_eq(x, y))
}

/// `verbose_arg_track`.
fn fmt_at(a: &At) -> String {
    match a.frame {
        ARG_NONE => "_".into(),
        ARG_UNVISITED => "?".into(),
        ARG_IMPRECISE => format!("IMP{:x}", a.mask),
        f if f >= 0 => {
            if a.off_cnt == 0 {
                format!("fp{f} ?")
            } else {
                a.off[..a.off_cnt as usize].iter().map(|o| format!("fp{f}{o:+}")).collect::<Vec<_>>().join("|")
            }
        }
        _ => String::new(),
    }
}

/// `arg_merge_offsets`: sorted union, offset-imprecise past four.
fn arg_merge_offsets(a: At, b: At) -> At {
    let mut r = frame_only(a.frame);
    let imp = frame_only(a.frame);
    let (mut i, mut j, mut k) = (0usize, 0usize, 0usize);
    let (ac, bc) = (a.off_cnt as usize, b.off_cnt as usize);
    while i < ac && j < bc {
        let v;
        if a.off[i] <= b.off[j] {
            v = a.off[i];
            i += 1;
            if v == b.off[j] {
                j += 1;
            }
        } else {
            v = b.off[j];
            j += 1;
        }
        if k > 0 && r.off[k - 1] == v {
            continue;
        }
        if k >= MAX_ARG_OFFSETS {
            return imp;
        }
        r.off[k] = v;
        k += 1;
    }
    while i < ac {
        if k >= MAX_ARG_OFFSETS {
            return imp;
        }
        r.off[k] = a.off[i];
        k += 1;
        i += 1;
    }
    while j < bc {
        if k >= MAX_ARG_OFFSETS {
            return imp;
        }
        r.off[k] = b.off[j];
        k += 1;
        j += 1;
    }
    r.off_cnt = k as u8;
    r
}

fn frame_bits(a: &At) -> u32 {
    if a.frame >= 0 {
        1u32 << a.frame
    } else if a.frame == ARG_IMPRECISE {
        a.mask as u32
    } else {
        0
    }
}

/// `arg_join_imprecise`.
fn arg_join_imprecise(a: At, b: At) -> At {
    imprecise((frame_bits(&a) | frame_bits(&b)) as u16)
}

/// `__arg_track_join`.
fn at_join(a: At, b: At) -> At {
    if !is_visited(&b) {
        return a;
    }
    if !is_visited(&a) {
        return b;
    }
    if a.frame == b.frame && a.frame >= 0 {
        if a.off_cnt == 0 || b.off_cnt == 0 {
            return frame_only(a.frame);
        }
        return arg_merge_offsets(a, b);
    }
    if a.frame == ARG_NONE && b.frame == ARG_NONE {
        return a;
    }
    if a.frame >= 0 && b.frame == ARG_NONE {
        // a lone fp-N joined with nothing gains a fake fp+0: keeps the
        // use, prevents a def
        return if a.off_cnt == 1 { arg_merge_offsets(a, arg_single(a.frame, 0)) } else { a };
    }
    if b.frame >= 0 && a.frame == ARG_NONE {
        return if b.off_cnt == 1 { arg_merge_offsets(b, arg_single(b.frame, 0)) } else { b };
    }
    arg_join_imprecise(a, b)
}

/// `arg_add`: `off + delta` in s16, `None` on overflow.
fn arg_add(off: i16, delta: i64) -> Option<i16> {
    let d = i16::try_from(delta).ok()?;
    off.checked_add(d)
}

/// `arg_padd`.
fn arg_padd(at: &mut At, delta: i64) {
    if at.off_cnt == 0 {
        return;
    }
    for i in 0..at.off_cnt as usize {
        match arg_add(at.off[i], delta) {
            Some(v) => at.off[i] = v,
            None => {
                at.off_cnt = 0;
                return;
            }
        }
    }
}

/// `arg_track_alu64`: pointer arithmetic with another register loses the
/// offsets (and, mixing frames, the frame).
fn arg_track_alu64(dst: &mut At, src: &At) {
    if dst.frame >= 0 && (src.frame == ARG_NONE || src.frame == dst.frame) {
        dst.off_cnt = 0;
        return;
    }
    if src.frame >= 0 && dst.frame == ARG_NONE {
        dst.off_cnt = 0;
        dst.frame = src.frame;
        return;
    }
    if dst.frame == ARG_NONE && src.frame == ARG_NONE {
        return;
    }
    *dst = arg_join_imprecise(*dst, *src);
}

/// `stack_arg_off_to_slot`.
fn stack_arg_off_to_slot(off: i16) -> Option<usize> {
    let a = (off as i32).abs();
    if a / 8 > MAX_STACK_ARG_SLOTS as i32 {
        return None;
    }
    usize::try_from(a / 8 - 1).ok()
}

/// `fp_off_to_slot`: 8-byte aligned offsets fp-8 .. fp-512.
fn fp_off_to_slot(off: i16) -> Option<usize> {
    if off >= 0 || (off as i32) < -((MAX_ARG_SPILL_SLOTS * 8) as i32) || off % 8 != 0 {
        return None;
    }
    Some((-(off as i32) / 8 - 1) as usize)
}

/// `fill_from_stack`.
fn fill_from_stack(insn: &Insn, at_out: &[At], reg: usize, stack: &[At], depth: usize) -> At {
    let imp = imprecise(((1u32 << (depth + 1)) - 1) as u16);
    if reg == FP {
        return fp_off_to_slot(insn.off).map_or(imp, |s| stack[s]);
    }
    let cnt = at_out[reg].off_cnt as usize;
    if cnt == 0 {
        return imp;
    }
    let mut result = NONE;
    for i in 0..cnt {
        let Some(fp_off) = arg_add(at_out[reg].off[i], insn.off as i64) else { return imp };
        let Some(slot) = fp_off_to_slot(fp_off) else { return imp };
        result = at_join(result, stack[slot]);
    }
    result
}

/// `spill_to_stack`.
fn spill_to_stack(insn: &Insn, at_out: &[At], reg: usize, stack: &mut [At], val: At, sz: u32) {
    let new_val = if sz == 8 { val } else { NONE };
    if reg == FP {
        if let Some(s) = fp_off_to_slot(insn.off) {
            stack[s] = new_val;
        }
        return;
    }
    let cnt = at_out[reg].off_cnt as usize;
    if cnt == 0 {
        for s in stack.iter_mut() {
            *s = at_join(*s, new_val);
        }
        return;
    }
    for i in 0..cnt {
        let Some(fp_off) = arg_add(at_out[reg].off[i], insn.off as i64) else { continue };
        let Some(slot) = fp_off_to_slot(fp_off) else { continue };
        stack[slot] = if cnt == 1 { new_val } else { at_join(stack[slot], new_val) };
    }
}

/// `clear_overlapping_stack_slots`.
fn clear_overlapping_stack_slots(stack: &mut [At], off: i32, sz: u32, cnt: usize) {
    if cnt == 0 {
        for s in stack.iter_mut() {
            *s = at_join(*s, NONE);
        }
        return;
    }
    for (i, s) in stack.iter_mut().enumerate() {
        let start = -(((i + 1) * 8) as i32);
        let end = start + 8;
        if start < off + sz as i32 && end > off {
            *s = if cnt == 1 { NONE } else { at_join(*s, NONE) };
        }
    }
}

/// `clear_stack_for_all_offs`.
fn clear_stack_for_all_offs(insn: &Insn, at_out: &[At], reg: usize, stack: &mut [At], sz: u32) {
    if reg == FP {
        clear_overlapping_stack_slots(stack, insn.off as i32, sz, 1);
        return;
    }
    let cnt = at_out[reg].off_cnt as usize;
    if cnt == 0 {
        clear_overlapping_stack_slots(stack, 0, sz, 0);
        return;
    }
    for i in 0..cnt {
        match arg_add(at_out[reg].off[i], insn.off as i64) {
            Some(fp_off) => clear_overlapping_stack_slots(stack, fp_off as i32, sz, cnt),
            None => {
                clear_overlapping_stack_slots(stack, 0, sz, 0);
                break;
            }
        }
    }
}

/// `can_be_local_fp`.
/// Whether `arg_track_xfer` of `insn` (not a store) leaves every register
/// of `row` as it is: jumps other than calls, and ALU on a register that
/// holds no frame pointer and stays so. Most insns, which then need no
/// copy of the row.
fn xfer_keeps_regs(insn: &Insn, row: &AtRow) -> bool {
    let d = (insn.dst as usize).min(MAX_AT_TRACK_REGS - 1);
    match insn.class() {
        BPF_JMP => op(insn.code) != BPF_CALL,
        BPF_JMP32 => true,
        BPF_ALU => row[d] == NONE,
        BPF_ALU64 if src(insn.code) == BPF_K => {
            if op(insn.code) == BPF_MOV {
                row[d] == NONE
            } else {
                row[d].frame < 0
            }
        }
        _ => false,
    }
}

fn can_be_local_fp(depth: usize, regno: usize, at: &At) -> bool {
    regno == FP || at.frame as i64 == depth as i64 || (at.frame == ARG_IMPRECISE && (at.mask as u32) & (1 << depth) != 0)
}

fn bpf_size_to_bytes(code: u8) -> u32 {
    match size(code) {
        BPF_B => 1,
        BPF_H => 2,
        BPF_W => 4,
        _ => 8,
    }
}

/// `bpf_atomic_load_reg`.
pub(super) fn bpf_atomic_load_reg(insn: &Insn) -> Option<usize> {
    if insn.class() != BPF_STX || !matches!(mode(insn.code), BPF_ATOMIC | BPF_PROBE_ATOMIC) {
        return None;
    }
    match insn.imm {
        BPF_LOAD_ACQ => Some(insn.dst as usize),
        BPF_CMPXCHG => Some(0),
        imm if imm & BPF_FETCH != 0 => Some(insn.src as usize),
        _ => None,
    }
}

/// Shared state of one `bpf_compute_subprog_arg_access` run.
struct Liveness<'e, 'a> {
    env: &'e mut VerifierEnv<'a>,
    instances: Vec<Option<FuncInstance>>,
    by_key: HashMap<(usize, usize), usize>,
    subprog_calls: u32,
    /// `env->callsite_at_stack`: the spill tracking at each call site.
    callsite_at_stack: HashMap<usize, Vec<At>>,
    /// `subprog_at_info.at_in` per subprogram.
    info: Vec<Option<AtRows>>,
}

impl Liveness<'_, '_> {
    fn level2(&self) -> bool {
        self.env.level() & BPF_LOG_LEVEL2 != 0
    }

    /// `call_instance`.
    fn call_instance(&mut self, caller_depth: Option<usize>, callsite: usize, subprog: usize) -> usize {
        let depth = caller_depth.map_or(0, |d| d + 1);
        let start = self.env.subprog_info[subprog].start;
        let key = if depth > 0 { callsite } else { start };
        if let Some(&i) = self.by_key.get(&(depth, key)) {
            return i;
        }
        let cnt = self.env.subprog_info[subprog + 1].start - start;
        self.instances.push(Some(FuncInstance::new(key, depth, subprog, start, cnt)));
        let i = self.instances.len() - 1;
        self.by_key.insert((depth, key), i);
        i
    }

    /// `arg_track_join` with its level-2 trace.
    fn join(&mut self, idx: usize, target: usize, r: i64, slot: &mut At, out: At) -> bool {
        let old = *slot;
        let new = at_join(old, out);
        if at_eq(&new, &old) {
            return false;
        }
        *slot = new;
        if !self.level2() || !is_visited(&old) {
            return true;
        }
        let what = if r >= MAX_BPF_REG as i64 {
            format!("sa{}: ", r - MAX_BPF_REG as i64)
        } else if r >= 0 {
            format!("r{r}: ")
        } else {
            format!("fp{:+}: ", r * 8)
        };
        let line = format!("arg JOIN insn {idx} -> {target} {what}{} + {} => {}\n", fmt_at(&old), fmt_at(&out), fmt_at(&new));
        self.env.verbose(&line);
        true
    }

    /// `arg_track_xfer`.
    #[allow(clippy::too_many_arguments)]
    /// `stack_out` is given for stores only, the insns that change spill slots.
    fn xfer(
        &self,
        insn: &Insn,
        at_out: &mut [At; MAX_AT_TRACK_REGS],
        stack_in: &[At],
        stack_out: Option<&mut [At]>,
        stack_arg_entry: &[At],
        depth: usize,
        callsites: &[usize],
    ) {
        let cls = insn.class();
        let code = op(insn.code);
        let d = (insn.dst as usize).min(MAX_AT_TRACK_REGS - 1);
        let s = (insn.src as usize).min(MAX_AT_TRACK_REGS - 1);
        if is_stack_arg_st(insn) || is_stack_arg_stx(insn) {
            if let Some(slot) = stack_arg_off_to_slot(insn.off) {
                at_out[MAX_BPF_REG as usize + slot] = if is_stack_arg_stx(insn) { at_out[s] } else { NONE };
            }
        } else if is_stack_arg_ldx(insn) {
            at_out[d] = stack_arg_off_to_slot(insn.off).map_or(NONE, |slot| stack_arg_entry[slot]);
        } else if cls == BPF_ALU64 && src(insn.code) == BPF_K {
            if code == BPF_MOV {
                at_out[d] = NONE;
            } else if at_out[d].frame >= 0 {
                match code {
                    BPF_ADD => arg_padd(&mut at_out[d], insn.imm as i64),
                    BPF_SUB => arg_padd(&mut at_out[d], -(insn.imm as i64)),
                    _ => at_out[d].off_cnt = 0,
                }
            }
        } else if cls == BPF_ALU64 && src(insn.code) == BPF_X {
            if code == BPF_MOV {
                at_out[d] = if insn.off == 0 { at_out[s] } else { NONE };
            } else {
                let srcv = at_out[s];
                arg_track_alu64(&mut at_out[d], &srcv);
            }
        } else if cls == BPF_ALU {
            at_out[d] = NONE;
        } else if cls == BPF_JMP && code == BPF_CALL {
            for r in at_out.iter_mut().take(6) {
                *r = NONE;
            }
        } else if cls == BPF_LDX {
            let sz = bpf_size_to_bytes(insn.code);
            let srcv = at_out[s];
            let mem8 = mode(insn.code) == BPF_MEM && sz == 8;
            at_out[d] = if can_be_local_fp(depth, s, &srcv) && mem8 {
                fill_from_stack(insn, at_out, s, stack_in, depth)
            } else if srcv.frame >= 0 && (srcv.frame as usize) < depth && mem8 {
                match callsites.get(srcv.frame as usize).and_then(|cs| self.callsite_at_stack.get(cs)) {
                    Some(parent) => fill_from_stack(insn, at_out, s, parent, srcv.frame as usize),
                    None => imprecise(((1u32 << (srcv.frame + 1)) - 1) as u16),
                }
            } else if srcv.frame == ARG_IMPRECISE && (srcv.mask as u32) & (1 << depth) == 0 && srcv.mask != 0 && mem8 {
                srcv
            } else {
                NONE
            };
        } else if cls == BPF_LD && mode(insn.code) == BPF_IMM {
            at_out[d] = NONE;
        } else if cls == BPF_STX {
            let Some(stack_out) = stack_out else { return };
            let sz = bpf_size_to_bytes(insn.code);
            let local = can_be_local_fp(depth, d, &at_out[d]);
            if local && mode(insn.code) == BPF_MEM {
                let val = at_out[s];
                spill_to_stack(insn, at_out, d, stack_out, val, sz);
            }
            if mode(insn.code) == BPF_ATOMIC {
                if local && insn.imm != BPF_LOAD_ACQ {
                    clear_stack_for_all_offs(insn, at_out, d, stack_out, sz);
                }
                if let Some(r) = bpf_atomic_load_reg(insn) {
                    at_out[r.min(MAX_AT_TRACK_REGS - 1)] = NONE;
                }
            }
        } else if cls == BPF_ST && mode(insn.code) == BPF_MEM {
            let Some(stack_out) = stack_out else { return };
            let sz = bpf_size_to_bytes(insn.code);
            if can_be_local_fp(depth, d, &at_out[d]) {
                clear_stack_for_all_offs(insn, at_out, d, stack_out, sz);
            }
        }
    }

    /// `arg_track_log`: what one insn changed, at level 2.
    fn log_xfer(&mut self, idx: usize, at_in: &[At], stack_in: &[At], at_out: &[At], stack_out: &[At]) {
        if !self.level2() {
            return;
        }
        let mut line = String::new();
        for i in 0..MAX_BPF_REG as usize {
            if !at_eq(&at_out[i], &at_in[i]) {
                line.push_str(&format!("\tr{i}: {} -> {}", fmt_at(&at_in[i]), fmt_at(&at_out[i])));
            }
        }
        for i in 0..MAX_STACK_ARG_SLOTS {
            let ai = MAX_BPF_REG as usize + i;
            if !at_eq(&at_out[ai], &at_in[ai]) {
                line.push_str(&format!("\tsa{i}: {} -> {}", fmt_at(&at_in[ai]), fmt_at(&at_out[ai])));
            }
        }
        for i in 0..MAX_ARG_SPILL_SLOTS {
            if !at_eq(&stack_out[i], &stack_in[i]) {
                line.push_str(&format!("\tfp{:+}: {} -> {}", -(((i + 1) * 8) as i64), fmt_at(&stack_in[i]), fmt_at(&stack_out[i])));
            }
        }
        if !line.is_empty() {
            let head = format!("{idx:3}: {}", self.env.insn_text(idx));
            self.env.verbose(&head);
            self.env.verbose(&line);
            self.env.verbose("\n");
        }
    }

    /// `compute_subprog_args`: the forward fixed point for one instance,
    /// then the accesses it implies.
    fn compute_subprog_args(&mut self, inst: usize, entry: Option<&[At; MAX_AT_TRACK_REGS]>, callsites: &[usize]) -> PResult<()> {
        let (subprog, depth) = {
            let f = self.instances[inst].as_ref().expect("live instance");
            (f.subprog, f.depth)
        };
        let start = self.env.subprog_info[subprog].start;
        let end = self.env.subprog_info[subprog + 1].start;
        let po = self.env.subprog_info[subprog].postorder_start..self.env.subprog_info[subprog + 1].postorder_start;
        let len = end - start;
        let mut at_in = AtRows::new(len);
        if !self.level2() && entry.is_none() && len > 0 && !self.env.insns[start..end].iter().any(|i| i.dst == BPF_REG_FP || i.src == BPF_REG_FP) {
            return self.compute_subprog_args_without_fp(subprog, depth, at_in);
        }
        // spill tracking rows are shared between insns until one changes
        // them: memory stays proportional to the stores, not to the size
        let unvisited_row: StackRow = Rc::new([UNVISITED; MAX_ARG_SPILL_SLOTS]);
        let mut stack_in: Vec<StackRow> = vec![unvisited_row.clone(); len];
        let mut entry_row = [NONE; MAX_AT_TRACK_REGS];
        entry_row[FP] = arg_single(depth as i8, 0);
        if let Some(e) = entry {
            entry_row[1..=5].copy_from_slice(&e[1..=5]);
        }
        if len > 0 {
            at_in.ids[0] = at_in.push(entry_row);
        }
        stack_in[0] = Rc::new([NONE; MAX_ARG_SPILL_SLOTS]);
        let mut stack_arg_entry = [NONE; MAX_STACK_ARG_SLOTS];
        if let Some(e) = entry {
            stack_arg_entry.copy_from_slice(&e[MAX_BPF_REG as usize..]);
        }
        if self.level2() {
            self.env.verbose(&format!("subprog#{subprog}: analyzing (depth {depth})...\n"));
        }
        let order: Vec<usize> = self.env.insn_postorder[po].iter().rev().map(|&i| i as usize).filter(|&i| (start..end).contains(&i)).collect();
        // Without the level-2 trace (which shows every visit of every
        // pass), an insn whose input did not change since its last visit
        // is skipped: its joins would change nothing (the join is a
        // semilattice), so the fixed point is the same, in one pass for
        // code without loops instead of two.
        let trace = self.level2();
        let mut dirty = vec![false; len];
        dirty[0] = true;
        let succs = super::cfg::SuccTable::new(self.env, if trace { &[] } else { &order });
        loop {
            let mut changed = false;
            for (oi, &idx) in order.iter().enumerate() {
                let i = idx - start;
                if !trace {
                    if !dirty[i] {
                        continue;
                    }
                    dirty[i] = false;
                }
                let in_id = at_in.ids[i];
                let visited = {
                    let r = at_in.get(i);
                    is_visited(&r[0]) || is_visited(&r[1])
                };
                if !visited {
                    continue;
                }
                let insn = self.env.insns[idx];
                let in_row = stack_in[i].clone();
                let (out_id, out_row) = if !trace && xfer_keeps_regs(&insn, at_in.get(i)) {
                    // the common case: the output is the input, shared
                    (in_id, in_row)
                } else {
                    let in_regs = *at_in.get(i);
                    let mut at_out = in_regs;
                    // only stores change the spill slots: the others share the
                    // input row instead of copying it
                    let out_row = if matches!(insn.class(), BPF_STX | BPF_ST) {
                        let mut stack_out: [At; MAX_ARG_SPILL_SLOTS] = *in_row;
                        self.xfer(&insn, &mut at_out, &in_row[..], Some(&mut stack_out), &stack_arg_entry, depth, callsites);
                        if trace {
                            self.log_xfer(idx, &in_regs, &in_row[..], &at_out, &stack_out);
                        }
                        if stack_out.iter().zip(in_row.iter()).all(|(a, b)| at_eq(a, b)) { in_row } else { Rc::new(stack_out) }
                    } else {
                        self.xfer(&insn, &mut at_out, &in_row[..], None, &stack_arg_entry, depth, callsites);
                        if trace {
                            self.log_xfer(idx, &in_regs, &in_row[..], &at_out, &in_row[..]);
                        }
                        in_row
                    };
                    // an insn that changed no register shares its input row
                    (if at_out == in_regs { in_id } else { at_in.push(at_out) }, out_row)
                };
                let own;
                let succ = if trace {
                    own = bpf_insn_successors(self.env, idx).as_slice().to_vec();
                    &own[..]
                } else {
                    succs.get(oi)
                };
                for &target in succ {
                    if target < start || target >= end {
                        continue;
                    }
                    let ti = target - start;
                    let mut in_changed = false;
                    let t_id = at_in.ids[ti];
                    if t_id == out_id {
                        // joining a row with itself changes nothing
                    } else if t_id == UNVISITED_ROW {
                        // a first visit takes the output as it is (the
                        // join of unvisited with anything), silently
                        in_changed = out_id == in_id || at_in.rows[out_id as usize].iter().any(is_visited);
                        at_in.ids[ti] = out_id;
                    } else if trace || !at_row_eq(&at_in.rows[t_id as usize], &at_in.rows[out_id as usize]) {
                        let at_out = at_in.rows[out_id as usize];
                        let mut row = at_in.rows[t_id as usize];
                        for (r, slot) in row.iter_mut().enumerate() {
                            in_changed |= self.join(idx, target, r as i64, slot, at_out[r]);
                        }
                        if in_changed {
                            at_in.ids[ti] = at_in.push(row);
                        }
                    }
                    if Rc::ptr_eq(&stack_in[ti], &out_row) {
                        // joining a row with itself changes nothing
                    } else if Rc::ptr_eq(&stack_in[ti], &unvisited_row) {
                        // every slot takes the new value, silently
                        // (rows other than the unvisited one are visited
                        // throughout: checked cheaply first)
                        in_changed |= !Rc::ptr_eq(&out_row, &unvisited_row) || out_row.iter().any(is_visited);
                        stack_in[ti] = out_row.clone();
                    } else {
                        let mut row: [At; MAX_ARG_SPILL_SLOTS] = *stack_in[ti];
                        let mut row_changed = false;
                        for (r, slot) in row.iter_mut().enumerate() {
                            row_changed |= self.join(idx, target, -(r as i64) - 1, slot, out_row[r]);
                        }
                        if row_changed {
                            in_changed = true;
                            stack_in[ti] = Rc::new(row);
                        }
                    }
                    if in_changed {
                        changed = true;
                        dirty[ti] = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        // record the accesses (reverse post-order skips dead code)
        for &idx in &order {
            let i = idx - start;
            let insn = self.env.insns[idx];
            if matches!(insn.class(), BPF_LDX | BPF_STX | BPF_ST) {
                self.record_load_store_access(inst, at_in.get(i), idx);
            }
            if insn.code == BPF_JMP | BPF_CALL {
                self.record_call_access(inst, at_in.get(i), idx)?;
            }
            if bpf_pseudo_call(&insn) || self.env.bpf_calls_callback(idx) {
                self.callsite_at_stack.insert(idx, stack_in[i].to_vec());
            }
        }
        self.print_subprog_arg_access(subprog, &at_in, &stack_in);
        self.info[subprog] = Some(at_in);
        Ok(())
    }

    /// `compute_subprog_args` of a subprogram entered without arguments
    /// whose insns never name r10: no value derives from the frame
    /// pointer but r10 itself, so every reachable insn sees the entry row,
    /// no spill slot is tracked and no stack access is recorded. The fixed
    /// point it would reach, without walking it (most of the analysis's
    /// cost on programs that do not use the stack).
    fn compute_subprog_args_without_fp(&mut self, subprog: usize, depth: usize, mut at_in: AtRows) -> PResult<()> {
        let start = self.env.subprog_info[subprog].start;
        let po = self.env.subprog_info[subprog].postorder_start..self.env.subprog_info[subprog + 1].postorder_start;
        let mut entry_row = [NONE; MAX_AT_TRACK_REGS];
        entry_row[FP] = arg_single(depth as i8, 0);
        let entry_id = at_in.push(entry_row);
        for p in po {
            let idx = self.env.insn_postorder[p] as usize;
            let Some(i) = idx.checked_sub(start).filter(|&i| i < at_in.len()) else { continue };
            at_in.ids[i] = entry_id;
            let insn = self.env.insns[idx];
            if insn.code == BPF_JMP | BPF_CALL && !bpf_pseudo_call(&insn) {
                // helper calls read no stack through non-frame arguments,
                // but an unknown prototype stops the analysis all the same
                bpf_get_call_summary(self.env, &insn)?;
            }
            if bpf_pseudo_call(&insn) || self.env.bpf_calls_callback(idx) {
                self.callsite_at_stack.insert(idx, vec![NONE; MAX_ARG_SPILL_SLOTS]);
            }
        }
        self.info[subprog] = Some(at_in);
        Ok(())
    }

    /// `record_load_store_access`.
    fn record_load_store_access(&mut self, inst: usize, at: &[At; MAX_AT_TRACK_REGS], idx: usize) {
        let insn = self.env.insns[idx];
        if is_stack_arg_stx(&insn) || is_stack_arg_st(&insn) || is_stack_arg_ldx(&insn) {
            return;
        }
        let mut sz = bpf_size_to_bytes(insn.code) as i64;
        let reg = |r: u8| (r as usize).min(MAX_AT_TRACK_REGS - 1);
        let ptr = match insn.class() {
            BPF_LDX => at[reg(insn.src)],
            BPF_STX if mode(insn.code) == BPF_ATOMIC => {
                if insn.imm == BPF_STORE_REL {
                    sz = -sz;
                }
                if insn.imm == BPF_LOAD_ACQ { at[reg(insn.src)] } else { at[reg(insn.dst)] }
            }
            BPF_STX | BPF_ST => {
                sz = -sz;
                at[reg(insn.dst)]
            }
            _ => return,
        };
        let mut p = ptr;
        if ptr.off_cnt > 0 {
            for k in 0..ptr.off_cnt as usize {
                match arg_add(ptr.off[k], insn.off as i64) {
                    Some(v) => p.off[k] = v,
                    None => {
                        p.off_cnt = 0;
                        break;
                    }
                }
            }
        }
        let f = self.instances[inst].as_mut().expect("live instance");
        if p.frame >= 0 && p.frame as usize <= f.depth {
            record_stack_access(f, &p, sz, p.frame as usize, idx);
        } else if p.frame == ARG_IMPRECISE {
            record_imprecise(f, p.mask as u32, idx);
        }
    }

    /// `record_call_access`: stack memory a helper or kfunc reaches through
    /// frame-pointer-derived arguments (all five when its prototype is
    /// unknown).
    fn record_call_access(&mut self, inst: usize, at: &[At; MAX_AT_TRACK_REGS], idx: usize) -> PResult<()> {
        let insn = self.env.insns[idx];
        if bpf_pseudo_call(&insn) {
            return Ok(());
        }
        let num_params = bpf_get_call_summary(self.env, &insn)?.map_or(MAX_BPF_FUNC_REG_ARGS, |c| c.num_params as usize);
        for (r, a) in at.iter().enumerate().take(num_params.min(MAX_BPF_FUNC_REG_ARGS) + 1).skip(1) {
            self.record_arg_access(inst, &insn, a, r - 1, idx)?;
        }
        for r in 0..MAX_STACK_ARG_SLOTS.min(num_params.saturating_sub(MAX_BPF_FUNC_REG_ARGS)) {
            self.record_arg_access(inst, &insn, &at[MAX_BPF_REG as usize + r], r + MAX_BPF_FUNC_REG_ARGS, idx)?;
        }
        Ok(())
    }

    /// `record_arg_access`: argument `arg_idx` (0-based) of the call at
    /// `idx`.
    fn record_arg_access(&mut self, inst: usize, insn: &Insn, at: &At, arg_idx: usize, idx: usize) -> PResult<()> {
        if !is_fp(at) {
            return Ok(());
        }
        let bytes = if bpf_helper_call(insn) {
            bpf_helper_stack_access_bytes(self.env, insn, arg_idx, idx)?
        } else if bpf_pseudo_kfunc_call(insn) {
            bpf_kfunc_stack_access_bytes(self.env, insn, arg_idx, idx)?
        } else {
            let f = self.instances[inst].as_mut().expect("live instance");
            for fr in 0..=f.depth {
                f.mark_read(fr, idx, SPIS_ALL);
            }
            return Ok(());
        };
        if bytes == 0 {
            return Ok(());
        }
        let f = self.instances[inst].as_mut().expect("live instance");
        if at.frame >= 0 && at.frame as usize <= f.depth {
            record_stack_access(f, at, bytes, at.frame as usize, idx);
        } else if at.frame == ARG_IMPRECISE {
            record_imprecise(f, at.mask as u32, idx);
        }
        Ok(())
    }

    /// `print_subprog_arg_access`.
    fn print_subprog_arg_access(&mut self, subprog: usize, at_in: &AtRows, stack_in: &[StackRow]) {
        if !self.level2() {
            return;
        }
        let start = self.env.subprog_info[subprog].start;
        let name = fmt_subprog(self.env, subprog);
        self.env.verbose(&format!("{name}:\n"));
        let len = at_in.len();
        let mut i = 0;
        while i < len {
            let idx = start + i;
            let insn = self.env.insns[idx];
            let cls = insn.class();
            let ldx_stx_call = cls == BPF_LDX || cls == BPF_STX || insn.code == BPF_JMP | BPF_CALL;
            let text = self.env.insn_text(idx);
            self.env.verbose(&format!("{idx:3}: {text}"));
            self.env.verbose("\n");
            let regs_visited = ldx_stx_call && is_visited(&at_in.get(i)[0]);
            let mut extra = String::new();
            if regs_visited {
                for (r, a) in at_in.get(i).iter().enumerate().take(MAX_BPF_REG as usize - 1) {
                    if is_fp(a) {
                        extra.push_str(&format!(" r{r}={}", fmt_at(a)));
                    }
                }
                for r in 0..MAX_STACK_ARG_SLOTS {
                    let a = &at_in.get(i)[MAX_BPF_REG as usize + r];
                    if is_fp(a) {
                        extra.push_str(&format!(" sa{r}={}", fmt_at(a)));
                    }
                }
            }
            let mut stack_extra = String::new();
            if ldx_stx_call {
                for (r, a) in stack_in[i].iter().enumerate() {
                    if is_fp(a) {
                        stack_extra.push_str(&format!(" fp{:+}={}", -(((r + 1) * 8) as i64), fmt_at(a)));
                    }
                }
            }
            if !extra.is_empty() || !stack_extra.is_empty() {
                let end = self.env.log.end_pos;
                self.env.log.reset(end.saturating_sub(1));
                self.env.verbose(" //");
                self.env.verbose(&extra);
                self.env.verbose(&stack_extra);
                self.env.verbose("\n");
            }
            if insn.is_ld_imm64() {
                i += 1;
            }
            i += 1;
        }
    }

    /// `find_callback_subprog`: the callback a callback-calling helper gets,
    /// and which caller register reaches which callback register.
    fn find_callback_subprog(&self, insn: &Insn, idx: usize) -> (i64, usize, usize) {
        if !bpf_helper_call(insn) {
            return (-1, 0, 0);
        }
        let (cb_reg, caller, callee) = match insn.imm {
            181 => (2, 3, 2), // bpf_loop(nr, cb, ctx, flags)
            164 => (2, 3, 4), // for_each_map_elem(map, cb, ctx, flags)
            180 => (3, 4, 3), // find_vma(task, addr, cb, ctx, flags)
            209 => (2, 3, 2), // user_ringbuf_drain(map, cb, ctx, flags)
            _ => return (-1, 0, 0),
        };
        let c = self.env.const_regs_at(idx);
        if c.subprog_mask & (1 << cb_reg) == 0 {
            return (-2, caller, callee);
        }
        (c.vals[cb_reg] as i64, caller, callee)
    }

    /// `analyze_subprog`: one instance with its entry arguments, then every
    /// callee that receives frame-pointer-derived arguments.
    fn analyze_subprog(&mut self, entry: Option<&[At; MAX_AT_TRACK_REGS]>, inst: usize, callsites: &mut [usize; MAX_CALL_FRAMES]) -> PResult<()> {
        self.subprog_calls += 1;
        if self.subprog_calls > 10000 {
            self.env.verbose(&format!("liveness analysis exceeded complexity limit ({} calls)\n", self.subprog_calls));
            return Err(Fail::Errno(E2BIG));
        }
        let (subprog, depth, reused) = {
            let f = self.instances[inst].as_ref().expect("live instance");
            (f.subprog, f.depth, f.must_write_initialized)
        };
        // a reused instance records into a fresh one, merged afterwards
        let (work, prev) = if reused {
            let fresh = self.instances[inst].as_ref().expect("live instance").fresh();
            self.instances.push(Some(fresh));
            (self.instances.len() - 1, Some(inst))
        } else {
            (inst, None)
        };
        self.info[subprog] = None;
        let r = self.analyze_body(entry, work, subprog, depth, callsites);
        if let Some(prev) = prev {
            let fresh = self.instances[work].take().expect("fresh instance");
            if r.is_ok() {
                let dst = self.instances[prev].as_mut().expect("live instance");
                merge_instances(dst, fresh);
            }
        }
        r?;
        let target = prev.unwrap_or(work);
        self.update_instance(target);
        Ok(())
    }

    fn analyze_body(
        &mut self,
        entry: Option<&[At; MAX_AT_TRACK_REGS]>,
        work: usize,
        subprog: usize,
        depth: usize,
        callsites: &mut [usize; MAX_CALL_FRAMES],
    ) -> PResult<()> {
        self.compute_subprog_args(work, entry, callsites)?;
        if !self.env.has_subprog_refs && self.env.cfg_loop_free {
            // no bpf-to-bpf call and no callback call (those are loops to
            // check_cfg): no insn below passes arguments on
            return Ok(());
        }
        let start = self.env.subprog_info[subprog].start;
        let po = self.env.subprog_info[subprog].postorder_start..self.env.subprog_info[subprog + 1].postorder_start;
        for p in po {
            let idx = self.env.insn_postorder[p] as usize;
            let insn = self.env.insns[idx];
            // only calls pass arguments on: the others need no row
            if !bpf_pseudo_call(&insn) && !self.env.bpf_calls_callback(idx) {
                continue;
            }
            let Some(at_j) = idx.checked_sub(start).and_then(|j| self.info[subprog].as_ref().filter(|r| j < r.len()).map(|r| *r.get(j))) else { continue };
            let mut args = [NONE; MAX_AT_TRACK_REGS];
            let callee;
            if bpf_pseudo_call(&insn) {
                let target = jmp_target(idx, insn.imm);
                let Some(c) = usize::try_from(target).ok().and_then(|t| self.env.bpf_find_subprog(t)) else { continue };
                callee = c;
                args[1..=5].copy_from_slice(&at_j[1..=5]);
                args[MAX_BPF_REG as usize..].copy_from_slice(&at_j[MAX_BPF_REG as usize..]);
            } else if self.env.bpf_calls_callback(idx) {
                let (c, caller_reg, cb_reg) = self.find_callback_subprog(&insn, idx);
                if c == -2 {
                    // one helper call site, several callbacks: all of the
                    // stack may be read
                    if at_j[caller_reg].frame == ARG_NONE {
                        continue;
                    }
                    let f = self.instances[work].as_mut().expect("live instance");
                    for fr in 0..=depth {
                        f.mark_read(fr, idx, SPIS_ALL);
                    }
                    continue;
                }
                let Ok(c) = usize::try_from(c) else { continue };
                callee = c;
                args[cb_reg] = at_j[caller_reg];
            } else {
                continue;
            }
            // has_fp_args
            if !args[1..=5].iter().chain(args[MAX_BPF_REG as usize..].iter()).any(is_fp) {
                continue;
            }
            if depth == MAX_CALL_FRAMES - 1 {
                return Err(Fail::Errno(EINVAL));
            }
            let callee_inst = self.call_instance(Some(depth), idx, callee);
            callsites[depth] = idx;
            self.analyze_subprog(Some(&args), callee_inst, callsites)?;
            // the callee's entry liveness is read at the call site
            let (cstart, cdepth) = {
                let c = self.instances[callee_inst].as_ref().expect("live instance");
                (c.subprog_start, c.depth)
            };
            for fr in 0..cdepth {
                let lb = self.instances[callee_inst].as_ref().and_then(|c| c.get(fr, cstart)).map(|m| m.live_before);
                if let Some(lb) = lb {
                    self.instances[work].as_mut().expect("live instance").mark_read(fr, idx, lb);
                }
            }
        }
        Ok(())
    }

    /// `update_instance`: `live_before` to a fixed point, per frame.
    fn update_instance(&mut self, inst: usize) {
        let (subprog, depth) = {
            let f = self.instances[inst].as_mut().expect("live instance");
            f.must_write_initialized = true;
            (f.subprog, f.depth)
        };
        let po = self.env.subprog_info[subprog].postorder_start..self.env.subprog_info[subprog + 1].postorder_start;
        let env: &VerifierEnv<'_> = self.env;
        let f = self.instances[inst].as_mut().expect("live instance");
        loop {
            let mut changed = false;
            for frame in 0..=depth {
                if f.frames[frame].is_none() {
                    continue;
                }
                for idx in env.insn_postorder[po.clone()].iter().map(|&i| i as usize) {
                    let succ = bpf_insn_successors(env, idx);
                    let succ = succ.as_slice();
                    if succ.is_empty() {
                        continue;
                    }
                    let after = succ.iter().filter_map(|&s| f.get(frame, s)).fold(0u128, |a, m| a | m.live_before);
                    let Some(m) = f.alloc(frame, idx) else { continue };
                    let before = (after & !m.must_write) | m.may_read;
                    if before != m.live_before {
                        m.live_before = before;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// `print_instances`: every instance by call site, then depth.
    fn print_instances(&mut self) {
        let mut order: Vec<usize> = self.by_key.values().copied().collect();
        order.sort_by_key(|&i| {
            let f = self.instances[i].as_ref().expect("live instance");
            (f.callsite, f.depth)
        });
        for i in order {
            self.print_instance(i);
        }
    }

    /// `print_instance`.
    fn print_instance(&mut self, inst: usize) {
        let (subprog, depth, callsite, len) = {
            let f = self.instances[inst].as_ref().expect("live instance");
            (f.subprog, f.depth, f.callsite, f.insn_cnt)
        };
        let start = self.env.subprog_info[subprog].start;
        let name = fmt_subprog(self.env, subprog);
        self.env.verbose(&format!("stack use/def {name} "));
        self.env.verbose(&format!("(d{depth},cs{callsite}):\n"));
        let mut i = 0;
        while i < len {
            let idx = start + i;
            let mut pos = self.env.log.end_pos;
            self.env.verbose(&format!("{idx:3}: "));
            let text = self.env.insn_text(idx);
            self.env.verbose(&text);
            let insn_pos = self.env.log.end_pos;
            let pad = bpf_vlog_alignment(insn_pos - pos);
            self.env.verbose(&format!("{};", " ".repeat(pad)));
            pos = self.env.log.end_pos;
            self.env.verbose(" use: ");
            let mut has_use = false;
            for frame in (0..=depth).rev() {
                let m = self.instances[inst].as_ref().and_then(|f| f.get(frame, idx)).map_or(0, |m| m.may_read);
                if m == 0 {
                    continue;
                }
                let s = fmt_spis_mask(frame, !has_use, m);
                self.env.verbose(&s);
                has_use = true;
            }
            if !has_use {
                self.env.log.reset(pos);
            }
            pos = self.env.log.end_pos;
            self.env.verbose(" def: ");
            let mut has_def = false;
            for frame in (0..=depth).rev() {
                let m = self.instances[inst].as_ref().and_then(|f| f.get(frame, idx)).map_or(0, |m| m.must_write);
                if m == 0 {
                    continue;
                }
                let s = fmt_spis_mask(frame, !has_def, m);
                self.env.verbose(&s);
                has_def = true;
            }
            if !has_def {
                self.env.log.reset(if has_use { pos } else { insn_pos });
            }
            self.env.verbose("\n");
            if self.env.insns[idx].is_ld_imm64() {
                i += 1;
            }
            i += 1;
        }
    }
}

/// `record_stack_access_off`.
fn record_stack_access_off(f: &mut FuncInstance, fp_off: i64, bytes: i64, frame: usize, idx: usize) {
    if fp_off >= 0 {
        return;
    }
    let mut mask: Spis = 0;
    if bytes == i64::MIN {
        let hi = (-fp_off - 1) / STACK_SLOT_SZ;
        spis_or_range(&mut mask, 0, hi);
        f.mark_read(frame, idx, mask);
    } else if bytes > 0 {
        let hi = (-fp_off - 1) / STACK_SLOT_SZ;
        let lo = ((-fp_off - bytes) / STACK_SLOT_SZ).max(0);
        spis_or_range(&mut mask, lo, hi);
        f.mark_read(frame, idx, mask);
    } else if bytes < 0 {
        let b = -bytes;
        let hi = (-fp_off) / STACK_SLOT_SZ - 1;
        let lo = ((-fp_off - b + STACK_SLOT_SZ - 1) / STACK_SLOT_SZ).max(0);
        if lo <= hi {
            spis_or_range(&mut mask, lo, hi);
            f.mark_write(frame, idx, mask);
        }
    }
}

/// `record_stack_access`.
fn record_stack_access(f: &mut FuncInstance, arg: &At, bytes: i64, frame: usize, idx: usize) {
    if bytes == 0 {
        return;
    }
    if arg.off_cnt == 0 {
        if bytes > 0 || bytes == i64::MIN {
            f.mark_read(frame, idx, SPIS_ALL);
        }
        return;
    }
    if bytes != i64::MIN && bytes < 0 && arg.off_cnt != 1 {
        // a write through one of several offsets defines nothing
        return;
    }
    for k in 0..arg.off_cnt as usize {
        record_stack_access_off(f, arg.off[k] as i64, bytes, frame, idx);
    }
}

/// `record_imprecise`.
fn record_imprecise(f: &mut FuncInstance, mask: u32, idx: usize) {
    for fr in 0..=f.depth.min(31) {
        if mask & (1 << fr) != 0 {
            f.mark_read(fr, idx, SPIS_ALL);
        }
    }
}

/// `merge_instances`: reads union, writes intersect.
fn merge_instances(dst: &mut FuncInstance, mut src: FuncInstance) {
    for fr in 0..=dst.depth {
        match (dst.frames[fr].as_mut(), src.frames[fr].take()) {
            (Some(d), None) => d.iter_mut().for_each(|m| m.must_write = 0),
            (None, Some(mut s)) => {
                s.iter_mut().for_each(|m| m.must_write = 0);
                dst.frames[fr] = Some(s);
            }
            (Some(d), Some(s)) => {
                for (a, b) in d.iter_mut().zip(s.iter()) {
                    a.may_read |= b.may_read;
                    a.must_write &= b.must_write;
                }
            }
            (None, None) => {}
        }
    }
}

/// `fmt_subprog`.
fn fmt_subprog(env: &VerifierEnv<'_>, subprog: usize) -> String {
    let s = match &env.subprog_info[subprog].name {
        Some(n) => format!("subprog#{subprog} {n}"),
        None => format!("subprog#{subprog}"),
    };
    cap_tmp_str(s)
}

/// `TMP_STR_BUF_LEN`: the kernel formats these names into a 320-byte buffer.
fn cap_tmp_str(mut s: String) -> String {
    if s.len() > 319 {
        let mut cut = 319;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}

/// `fmt_spis_mask`: `fp0-8`, half slots as `fp0-4h`, runs of three or more
/// full slots as `fp0-8..-24`.
fn fmt_spis_mask(frame: usize, first: bool, spis: Spis) -> String {
    let mut out = String::new();
    let mut first = first;
    let spi_off = |spi: u32| -((spi as i64 + 1) * 8);
    let mut spi = 0u32;
    while spi < STACK_SLOTS / 2 {
        let lo = spis_test_bit(spis, spi * 2);
        let hi = spis_test_bit(spis, spi * 2 + 1);
        let space = if first { "" } else { " " };
        if !lo && !hi {
            spi += 1;
            continue;
        }
        if !lo || !hi {
            out.push_str(&format!("{space}fp{frame}{}h", spi_off(spi) + if lo { STACK_SLOT_SZ } else { 0 }));
        } else if spi + 2 < STACK_SLOTS / 2
            && spis_test_bit(spis, spi * 2 + 2)
            && spis_test_bit(spis, spi * 2 + 3)
            && spis_test_bit(spis, spi * 2 + 4)
            && spis_test_bit(spis, spi * 2 + 5)
        {
            let run = spi;
            while spi + 1 < STACK_SLOTS / 2 && spis_test_bit(spis, (spi + 1) * 2) && spis_test_bit(spis, (spi + 1) * 2 + 1) {
                spi += 1;
            }
            out.push_str(&format!("{space}fp{frame}{}..{}", spi_off(run), spi_off(spi)));
        } else {
            out.push_str(&format!("{space}fp{frame}{}", spi_off(spi)));
        }
        first = false;
        spi += 1;
    }
    cap_tmp_str(out)
}

/// `bpf_compute_subprog_arg_access`.
pub(super) fn bpf_compute_subprog_arg_access(env: &mut VerifierEnv<'_>) -> PResult<BpfLiveness> {
    let cnt = env.subprog_cnt;
    let mut lv = Liveness {
        env,
        instances: Vec::new(),
        by_key: HashMap::new(),
        subprog_calls: 0,
        callsite_at_stack: HashMap::new(),
        info: (0..cnt).map(|_| None).collect(),
    };
    let mut callsites = [0usize; MAX_CALL_FRAMES];
    for k in (0..cnt).rev() {
        let sub = lv.env.subprog_topo_order[k];
        if lv.info[sub].is_some() && !lv.env.bpf_subprog_is_global(sub) {
            continue;
        }
        let inst = lv.call_instance(None, 0, sub);
        lv.analyze_subprog(None, inst, &mut callsites)?;
    }
    if lv.level2() {
        lv.print_instances();
    }
    Ok(lv.into_bpf_liveness())
}

impl Liveness<'_, '_> {
    /// What the main pass keeps of the analysis: each instance's
    /// `live_before` masks.
    fn into_bpf_liveness(self) -> BpfLiveness {
        let mut instances = Vec::with_capacity(self.by_key.len());
        for (&key, &i) in &self.by_key {
            let Some(f) = self.instances.get(i).and_then(Option::as_ref) else { continue };
            let frames = f.frames.iter().map(|fr| fr.as_ref().map(|v| v.iter().map(|m| m.live_before).collect())).collect();
            instances.push((key, LiveInstance { depth: f.depth, start: f.subprog_start, frames }));
        }
        instances.sort_unstable_by_key(|&(key, _)| key);
        let env: &VerifierEnv<'_> = self.env;
        BpfLiveness {
            instances,
            subprog_starts: env.subprog_info.iter().map(|s| s.start).collect(),
            calls_callback: (0..env.len()).filter(|&i| env.bpf_calls_callback(i)).collect(),
        }
    }
}

/// One func instance after the analysis: `live_before` per frame and insn.
#[derive(Clone, Debug)]
struct LiveInstance {
    depth: usize,
    start: usize,
    frames: Vec<Option<Vec<Spis>>>,
}

impl LiveInstance {
    /// `is_live_before`.
    fn is_live_before(&self, insn_idx: usize, frame: usize, half_spi: usize) -> bool {
        let Some(rel) = insn_idx.checked_sub(self.start) else { return false };
        let Some(Some(masks)) = self.frames.get(frame) else { return false };
        masks.get(rel).is_some_and(|&m| spis_test_bit(m, half_spi as u32))
    }
}

/// `struct bpf_liveness` as the main pass queries it: the func instances
/// by `(depth, callsite)` (depth 0: the subprogram's start), sorted by
/// key. The main pass looks an instance up on every stack slot it asks
/// about; a binary search over the few instances costs less than hashing
/// the key (SipHash was ~13% of a stack-heavy program's verification).
#[derive(Clone, Debug, Default)]
pub struct BpfLiveness {
    instances: Vec<((usize, usize), LiveInstance)>,
    subprog_starts: Vec<usize>,
    /// The insns that call a callback, ascending (few: not a flag per insn).
    calls_callback: Vec<usize>,
}

impl BpfLiveness {
    /// `lookup_instance`: the instance of frame `frameno`, falling back to
    /// shallower depths (a global subprogram is analysed at depth 0 only).
    fn lookup_instance(&self, q: &LiveQuery, frameno: usize) -> Option<&LiveInstance> {
        let start = *self.subprog_starts.get(*q.subprogs.get(frameno)?)?;
        let callsite = if frameno > 0 { *q.callsites.get(frameno - 1)? } else { start };
        let mut depth = frameno;
        loop {
            let key = if depth > 0 { callsite } else { start };
            if let Ok(k) = self.instances.binary_search_by_key(&(depth, key), |&(key, _)| key) {
                return Some(&self.instances[k].1);
            }
            if depth == 0 {
                return None;
            }
            depth -= 1;
        }
    }

    fn calls_callback(&self, idx: usize) -> bool {
        self.calls_callback.binary_search(&idx).is_ok()
    }
}

impl StackLiveness for BpfLiveness {
    /// `bpf_stack_slot_alive`: read later in the current frame's instance,
    /// or, for an outer frame, alive after its call site (before it, when
    /// the call site calls a callback that may run again).
    fn stack_slot_alive(&self, q: &LiveQuery, frameno: usize, half_spi: usize) -> bool {
        let curframe = q.subprogs.len().saturating_sub(1);
        let Some(cur) = self.lookup_instance(q, curframe) else { return true };
        let rel = frameno as i64 + cur.depth as i64 - curframe as i64;
        if rel >= 0 && rel as usize <= cur.depth && cur.is_live_before(q.insn_idx, rel as usize, half_spi) {
            return true;
        }
        for i in frameno..curframe {
            let Some(inst) = self.lookup_instance(q, i) else { return true };
            let rel = frameno as i64 + inst.depth as i64 - i as i64;
            if rel < 0 || rel as usize > inst.depth {
                return true;
            }
            let Some(&callsite) = q.callsites.get(i) else { return true };
            let at = if self.calls_callback(callsite) { callsite } else { callsite + 1 };
            if inst.is_live_before(at, rel as usize, half_spi) {
                return true;
            }
        }
        false
    }
}

// ---------------------------------------------------------------- call summaries

/// Whether `bpf_get_helper_proto` can find a prototype at all: ids out of
/// range and `BPF_FUNC_unspec` never have one, whatever the program type.
fn helper_id_has_proto(id: i32) -> bool {
    id > 0 && id < BPF_FUNC_MAX_ID
}

/// `bpf_get_helper_proto`: the prototype the program's type gets for
/// helper `id`, if any.
pub(super) fn bpf_get_helper_proto(env: &VerifierEnv<'_>, id: i32) -> Option<&'static super::helper_protos::FuncProto> {
    if !helper_id_has_proto(id) {
        return None;
    }
    super::helpers::get_func_proto(id, &proto_ctx(env))
}

/// `struct bpf_call_summary`: the shape of a helper's or kfunc's prototype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BpfCallSummary {
    pub num_params: u32,
    pub is_void: bool,
    pub fastcall: bool,
}

/// The prototype context of the load (`env->ops->get_func_proto`'s view).
pub(crate) fn proto_ctx(env: &VerifierEnv<'_>) -> super::helpers::ProtoCtx {
    let caps = env.input.caps;
    super::helpers::ProtoCtx {
        prog_type: env.input.prog_type.0,
        expected_attach_type: super::prog_load::bpf_prog_load_fixup_attach_type(env.input.prog_type, env.input.expected_attach_type),
        sleepable: env.input.prog_flags & crate::uapi::prog_flags::BPF_F_SLEEPABLE != 0,
        cap_bpf: caps.bpf_capable(),
        cap_perfmon: caps.perfmon_capable(),
        cap_sys_admin: caps.sys_admin,
        attach_func: crate::vmlinux_btf::VmlinuxBtf::for_arch(env.input.symbols_arch)
            .and_then(|b| b.type_by_id(env.input.attach_btf_id))
            .map_or("", |t| t.name.as_str()),
    }
}

/// `bpf_verifier_inlines_helper_call` (x86_64, with the JIT) or
/// `bpf_jit_inlines_helper_call` (the other arches): the per-CPU and current-task
/// helpers become a few insns.
fn helper_call_inlined(env: &VerifierEnv<'_>, imm: i32) -> bool {
    use super::helpers::func;
    env.input.arch.kernel_jits() && matches!(imm, func::GET_SMP_PROCESSOR_ID | func::GET_CURRENT_TASK | func::GET_CURRENT_TASK_BTF)
}

/// `bpf_get_call_summary`: `None` where the kernel finds no prototype
/// (a bpf-to-bpf call, or a call refused later).
pub fn bpf_get_call_summary(env: &VerifierEnv<'_>, insn: &Insn) -> PResult<Option<BpfCallSummary>> {
    if bpf_helper_call(insn) {
        if !helper_id_has_proto(insn.imm) {
            return Ok(None);
        }
        let Some(fp) = super::helpers::get_func_proto(insn.imm, &proto_ctx(env)) else { return Ok(None) };
        let n = fp.args.iter().take_while(|&&a| a != super::helper_protos::ARG_DONTCARE).count();
        return Ok(Some(BpfCallSummary {
            num_params: n as u32,
            is_void: fp.ret == super::helper_protos::RET_VOID,
            fastcall: fp.allow_fastcall && helper_call_inlined(env, insn.imm),
        }));
    }
    if bpf_pseudo_kfunc_call(insn) {
        let known = env.kfunc_name(insn.imm).and_then(|name| super::kfuncs::KFUNCS.iter().find(|k| k.name == name));
        // bpf_fetch_kfunc_arg_meta fails for a kfunc the program type may
        // not call: reported later
        if known.is_some_and(|k| !super::kfuncs::btf_kfunc_is_allowed(k, env.input.prog_type.0)) {
            return Ok(None);
        }
        return match known {
            Some(k) => Ok(Some(BpfCallSummary {
                num_params: k.args.len() as u32,
                is_void: k.ret == super::kfuncs::KfRet::Void,
                fastcall: k.flags & super::kfuncs::kf::FASTCALL != 0,
            })),
            None => Err(kfunc_proto_unknown(env, insn)),
        };
    }
    Ok(None)
}

/// A kfunc whose prototype the model does not have, named.
fn kfunc_proto_unknown(env: &VerifierEnv<'_>, insn: &Insn) -> Fail {
    let what = match env.kfunc_name(insn.imm) {
        Some(name) => format!("the prototype of kfunc {name} is not modelled yet"),
        None => format!("the prototype of kfunc BTF id {} is not modelled yet", insn.imm),
    };
    Fail::unsupported("bpf_compute_live_registers", &what)
}

/// `bpf_helper_stack_access_bytes`: how many bytes helper argument `arg`
/// (0-based) reads through a stack pointer (negative: writes; 0: none;
/// `i64::MIN`: unknown).
pub fn bpf_helper_stack_access_bytes(env: &VerifierEnv<'_>, insn: &Insn, arg: usize, idx: usize) -> PResult<i64> {
    Ok(helper_stack_access_bytes(env, insn, arg, idx))
}

fn helper_stack_access_bytes(env: &VerifierEnv<'_>, insn: &Insn, arg: usize, idx: usize) -> i64 {
    use super::helper_protos::*;
    if !helper_id_has_proto(insn.imm) {
        return i64::MIN;
    }
    let Some(fp) = super::helpers::get_func_proto(insn.imm, &proto_ctx(env)) else { return i64::MIN };
    let Some(&at) = fp.args.get(arg) else { return i64::MIN };
    let base = |t: u32| t & ((1 << 8) - 1);
    let c = env.const_regs_at(idx);
    let size = match base(at) {
        ARG_PTR_TO_MAP_KEY | ARG_PTR_TO_MAP_VALUE => {
            let is_key = base(at) == ARG_PTR_TO_MAP_KEY;
            let map_reg = fp.args[..arg].iter().position(|&t| base(t) == ARG_CONST_MAP_PTR).map(|i| i + 1);
            let known = map_reg.filter(|&r| c.map_mask & (1 << r) != 0).and_then(|r| env.used_maps.get(c.vals[r] as usize)).map(|&m| &env.input.maps[m].def);
            match known {
                Some(d) => (if is_key { d.key_size } else { d.value_size }) as i64,
                None => {
                    // the map is not known here: the largest of all
                    let mut val = 0u32;
                    for &m in &env.used_maps {
                        let d = &env.input.maps[m].def;
                        val = val.max(if is_key { d.key_size } else { d.value_size });
                        if let Some(inner) = &d.inner {
                            val = val.max(if is_key { inner.key_size } else { inner.value_size });
                        }
                    }
                    if val == 0 {
                        return i64::MIN;
                    }
                    val as i64
                }
            }
        }
        ARG_PTR_TO_MEM => {
            if at & MEM_FIXED_SIZE != 0 {
                fp.arg_size[arg] as i64
            } else if arg + 1 < fp.args.len() && matches!(base(fp.args[arg + 1]), ARG_MEM_SIZE | ARG_MEM_SIZE_OR_ZERO) {
                let size_reg = arg + 2;
                if c.mask & (1 << size_reg) != 0 {
                    c.vals[size_reg] as i64
                } else if at & MEM_UNINIT != 0 {
                    return 0;
                } else {
                    return MAX_BPF_STACK;
                }
            } else {
                return i64::MIN;
            }
        }
        ARG_PTR_TO_DYNPTR => crate::kernel_layout::SIZEOF_BPF_DYNPTR_KERN as i64,
        // the callback reads the stack, analysed on its own
        ARG_PTR_TO_STACK => return 0,
        _ => return i64::MIN,
    };
    if at & MEM_UNINIT != 0 { -size } else { size }
}

/// `bpf_kfunc_stack_access_bytes` for the kfuncs the model has
/// prototypes of.
pub fn bpf_kfunc_stack_access_bytes(env: &VerifierEnv<'_>, insn: &Insn, arg: usize, idx: usize) -> PResult<i64> {
    use super::kfuncs::{KFUNCS, KfArg, kf};
    let Some(k) = env.kfunc_name(insn.imm).and_then(|name| KFUNCS.iter().find(|k| k.name == name)) else {
        return Err(kfunc_proto_unknown(env, insn));
    };
    if !super::kfuncs::btf_kfunc_is_allowed(k, env.input.prog_type.0) {
        return Ok(i64::MIN);
    }
    let Some(a) = k.args.get(arg) else { return Ok(0) };
    let size = match a {
        // not pointers
        KfArg::Scalar | KfArg::Const => return Ok(0),
        KfArg::Iter(t) => super::kfuncs::kernel_struct_size(crate::vmlinux_btf::VmlinuxBtf::for_arch(env.input.symbols_arch), t).map_or(0, i64::from),
        // unsigned long *
        KfArg::IrqFlag => 8,
        KfArg::IgnoreSized(n) => *n as i64,
        KfArg::Dynptr | KfArg::NullableDynptr => crate::kernel_layout::SIZEOF_BPF_DYNPTR_KERN as i64,
        // `int *`
        KfArg::FixedMem(n) => *n as i64,
        KfArg::BtfId(t) | KfArg::NullableBtfId(t) => {
            super::kfuncs::kernel_struct_size(crate::vmlinux_btf::VmlinuxBtf::for_arch(env.input.symbols_arch), t).map_or(0, i64::from)
        }
        // void *: no size
        KfArg::Ctx | KfArg::Ignore | KfArg::Map | KfArg::ConstMap | KfArg::AllocBtfId | KfArg::RefcountedKptr => return Ok(i64::MIN),
        // a function prototype has no size
        KfArg::Callback => return Ok(i64::MIN),
        // uapi `struct bpf_wq { __u64 __opaque[2]; }`, `struct
        // bpf_task_work { __u64 __opaque; }`
        KfArg::Wq => 16,
        // uapi `struct bpf_timer { __u64 __opaque[2]; }`
        KfArg::Timer => 16,
        KfArg::TaskWork => 8,
        // the kernel's `struct bpf_res_spin_lock { u32 val; }` (its BTF)
        KfArg::ResSpinLock => 4,
        // the uapi graph structs (`__u64 __opaque[2]`, `[3]`, `[2]`, `[4]`)
        KfArg::Implicit(bytes) => return Ok(*bytes),
        KfArg::ListHead => 16,
        KfArg::ListNode { .. } => 24,
        KfArg::RbRoot => 16,
        KfArg::RbNode => 32,
        // not stack memory of the program's (a ctx or kernel struct)
        KfArg::CtxProjection(_) => return Ok(i64::MIN),
        KfArg::DynptrUninit => -(crate::kernel_layout::SIZEOF_BPF_DYNPTR_KERN as i64),
        // `const char *`
        KfArg::ConstStr => 1,
        KfArg::MemSize | KfArg::ConstMemSize => return Ok(0),
        // the size is in the next register
        KfArg::Mem { .. } => {
            let c = env.const_regs_at(idx);
            let size_reg = arg + 2;
            if c.mask & (1 << size_reg) != 0 {
                c.vals[size_reg] as i64
            } else {
                return Ok(MAX_BPF_STACK);
            }
        }
    };
    if arg == 0 && k.flags & kf::ITER_NEW != 0 {
        return Ok(-size);
    }
    Ok(size)
}

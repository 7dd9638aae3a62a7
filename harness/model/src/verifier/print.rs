//! State printing of `kernel/bpf/log.c`: `print_reg_state`,
//! `print_verifier_state` and the slot characters of the stack.

use std::fmt::Write;

use super::do_check::MapInfo;
use super::reg::*;
use super::scalar::BPF_ADD_CONST;
use super::scalar::print::{print_scalar, print_scalar_ranges, print_tnum, push_i64, push_u64, verbose_snum, verbose_unum};
use super::state::*;
use super::tnum::{tnum_is_const, tnum_is_unknown};

/// `slot_type_char`.
pub fn slot_type_char(t: u8) -> char {
    match t {
        STACK_INVALID => '?',
        STACK_SPILL => 'r',
        STACK_MISC => 'm',
        STACK_ZERO => '0',
        STACK_DYNPTR => 'd',
        STACK_ITER => 'i',
        STACK_IRQ_FLAG => 'f',
        _ => 'p',
    }
}

/// `print_reg_state`: what follows `R<n>=` (or `fp-8=`).
pub fn print_reg_state(out: &mut String, frameno: usize, reg: &RegState, maps: &[MapInfo]) {
    let t = reg.typ;
    if t == SCALAR_VALUE {
        print_scalar(out, &reg.s, reg.id, reg.delta, reg.precise);
        return;
    }
    print_reg_type(out, t);
    if t == PTR_TO_ARENA {
        return;
    }
    if t == PTR_TO_STACK {
        if frameno != reg.frameno() {
            let _ = write!(out, "[{}]", reg.frameno());
        }
        if tnum_is_const(reg.s.var_off) {
            verbose_snum(out, (reg.s.var_off.value as i64).wrapping_add(reg.delta as i64));
            return;
        }
    }
    if base_type(t) == PTR_TO_BTF_ID {
        out.push_str(super::kfuncs::btf_type_name(reg.aux));
    }
    out.push('(');
    let mut sep: &'static str = "";
    if reg.id != 0 {
        let _ = write!(out, "{sep}id={}", reg.id & !BPF_ADD_CONST);
        sep = ",";
    }
    if reg.id & BPF_ADD_CONST != 0 {
        let _ = write!(out, "{:+}", reg.delta);
    }
    if reg.parent_id != 0 {
        let _ = write!(out, "{sep}parent_id={}", reg.parent_id);
        sep = ",";
    }
    if t & NON_OWN_REF != 0 {
        let _ = write!(out, "{sep}non_own_ref");
        sep = ",";
    }
    if type_is_map_ptr(t)
        && let Some(m) = usize::try_from(reg.aux).ok().and_then(|i| maps.get(i))
    {
        if !m.name.is_empty() {
            let _ = write!(out, "{sep}map={}", m.name);
            sep = ",";
        }
        let _ = write!(out, "{sep}ks={},vs={}", m.key_size, m.value_size);
        sep = ",";
    }
    if reg.delta != 0 {
        let _ = write!(out, "{sep}off=");
        sep = ",";
        verbose_snum(out, reg.delta as i64);
    }
    if type_is_pkt_pointer(t) {
        let _ = write!(out, "{sep}r=");
        sep = ",";
        // `range` is an int printed with %llu after promotion
        verbose_unum(out, reg.range() as i32 as i64 as u64);
    }
    if base_type(t) == PTR_TO_MEM {
        let _ = write!(out, "{sep}sz=");
        sep = ",";
        verbose_unum(out, reg.aux as u32 as u64);
    }
    if t == CONST_PTR_TO_DYNPTR {
        let _ = write!(out, "{sep}type={}", super::kfuncs::dynptr_type_str(reg.aux as u32));
        sep = ",";
    }
    if tnum_is_const(reg.s.var_off) {
        if reg.s.var_off.value != 0 {
            let _ = write!(out, "{sep}imm=");
            verbose_snum(out, reg.s.var_off.value as i64);
        }
    } else {
        print_scalar_ranges(out, &reg.s, &mut sep);
        if !tnum_is_unknown(reg.s.var_off) {
            out.push_str(sep);
            out.push_str("var_off=");
            print_tnum(out, reg.s.var_off);
        }
    }
    out.push(')');
}

/// Which registers and stack slots changed since the last print
/// (`env->scratched_regs`, `env->scratched_stack_slots`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Scratch {
    pub regs: u32,
    pub stack: u64,
}

impl Scratch {
    pub fn any(&self) -> bool {
        self.regs != 0 || self.stack != 0
    }
    pub fn mark_reg(&mut self, regno: usize) {
        self.regs |= 1 << (regno & 31);
    }
    pub fn mark_slot(&mut self, spi: usize) {
        // the kernel's u64 shift: slot numbers wrap at 64
        self.stack |= 1u64 << (spi & 63);
    }
    pub fn mark_all(&mut self) {
        self.regs = !0;
        self.stack = !0;
    }
    pub fn clear(&mut self) {
        self.regs = 0;
        self.stack = 0;
    }
}

/// ` fp<off>=` and a slot's type characters.
fn print_stack_slot_name(out: &mut String, off: i64, slot_type: &[u8]) {
    out.push_str(" fp");
    push_i64(out, off);
    out.push('=');
    for &t in slot_type {
        out.push(slot_type_char(t));
    }
}

/// `print_verifier_state` for frame `frameno` (the trailing newline
/// included); with `print_all` false only scratched registers and slots.
pub fn print_verifier_state(out: &mut String, st: &VerifierState, frameno: usize, print_all: bool, scratch: &Scratch, maps: &[MapInfo]) {
    let Some(state) = st.frame.get(frameno) else { return };
    if state.frameno != 0 {
        let _ = write!(out, " frame{}:", state.frameno);
    }
    for (i, reg) in state.regs.iter().enumerate() {
        if reg.typ == NOT_INIT {
            continue;
        }
        if !print_all && scratch.regs & (1 << i) == 0 {
            continue;
        }
        out.push_str(" R");
        push_u64(out, i as u64);
        out.push('=');
        print_reg_state(out, state.frameno, reg, maps);
    }
    let mut i = 0;
    while i < state.stack.len() {
        let slot = &state.stack[i];
        let cur = i;
        i += 1;
        if !print_all && scratch.stack & (1u64 << (cur & 63)) == 0 {
            continue;
        }
        let valid = slot.slot_type.iter().any(|&t| t != STACK_INVALID && t != STACK_POISON);
        if !valid {
            continue;
        }
        let off = (-(cur as i64) - 1) * BPF_REG_SIZE as i64;
        match slot.slot_type[BPF_REG_SIZE - 1] {
            STACK_SPILL => {
                // the slot types up to the first spilled byte
                let j = slot.slot_type.iter().position(|&t| t == STACK_SPILL).unwrap_or(BPF_REG_SIZE);
                print_stack_slot_name(out, off, &slot.slot_type[..j]);
                print_reg_state(out, state.frameno, &slot.spilled_ptr, maps);
            }
            STACK_DYNPTR => {
                // skip to the main (second) slot of the dynptr
                let j = cur + 1;
                i = j + 1;
                let r = state.stack.get(j).map(|s| s.spilled_ptr).unwrap_or_default();
                let off = (-(j as i64) - 1) * BPF_REG_SIZE as i64;
                let _ = write!(out, " fp{off}=dynptr_{}(", super::kfuncs::dynptr_type_str(r.aux as u32));
                let mut sep = "";
                if r.id != 0 {
                    let _ = write!(out, "id={}", r.id);
                    sep = ",";
                }
                if r.parent_id != 0 {
                    let _ = write!(out, "{sep}parent_id={}", r.parent_id);
                }
                out.push(')');
            }
            STACK_ITER => {
                let r = &slot.spilled_ptr;
                // only the main slot has the id
                if r.id == 0 {
                    continue;
                }
                let name = super::kfuncs::btf_type_name(r.aux);
                let name = name.strip_prefix("bpf_iter_").unwrap_or("<invalid>");
                let st = match r.iter_state() {
                    1 => "active",
                    2 => "drained",
                    0 => "<invalid>",
                    _ => "<unknown>",
                };
                let _ = write!(out, " fp{off}=iter_{name}(id={},state={st},depth={})", r.id, r.iter_depth());
            }
            _ => print_stack_slot_name(out, off, &slot.slot_type),
        }
    }
    if let Some(first) = st.refs.first()
        && first.id != 0
    {
        let _ = write!(out, " refs={}", first.id);
        for r in st.refs.iter().skip(1) {
            if r.id != 0 {
                let _ = write!(out, ",{}", r.id);
            }
        }
    }
    if state.in_callback_fn {
        out.push_str(" cb");
    }
    if state.in_async_callback_fn {
        out.push_str(" async_cb");
    }
    out.push('\n');
}

/// `bpf_vlog_alignment`: padding that puts the `;` comment at column 40
/// (or the next multiple of 8 past the insn text).
pub fn vlog_alignment(pos: u64) -> usize {
    let m = (pos + 4).max(40);
    (m.div_ceil(8) * 8 - pos - 1) as usize
}

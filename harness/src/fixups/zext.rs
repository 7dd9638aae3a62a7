//! Zero extension of 32-bit subregister defs (`bpf_opt_subreg_zext_lo32_rnd_hi32`
//! and what it reads: which insns define a 32-bit subregister).

use bpf_isa::Insn;
use bpf_isa::op::*;

/// `insn_def_regno`: the register an insn writes, if any. Atomics write a
/// register only when they fetch (`r0` for cmpxchg, `src` otherwise) or
/// load-acquire (`dst`).
pub fn insn_def_regno(insn: &Insn) -> Option<u8> {
    match insn.code & 0x07 {
        BPF_JMP | BPF_JMP32 | BPF_ST => None,
        BPF_STX => bpf_atomic_load_reg(insn),
        _ => Some(insn.dst),
    }
}

/// `bpf_atomic_load_reg`: the register a `BPF_ATOMIC` insn loads into.
fn bpf_atomic_load_reg(insn: &Insn) -> Option<u8> {
    if !matches!(insn.code & 0xe0, BPF_ATOMIC | BPF_PROBE_ATOMIC) {
        return None;
    }
    match insn.imm {
        BPF_CMPXCHG => Some(0),
        BPF_LOAD_ACQ => Some(insn.dst),
        imm if imm & BPF_FETCH != 0 => Some(insn.src),
        _ => None,
    }
}

/// `bpf_is_reg64`: whether the register the insn defines holds a 64-bit
/// value (conservatively yes).
fn bpf_is_reg64(insn: &Insn) -> bool {
    let (class, mode, size, op) = (insn.code & 0x07, insn.code & 0xe0, insn.code & 0x18, insn.code & 0xf0);
    if (class == BPF_ALU || class == BPF_ALU64) && op == BPF_END && insn.imm != 64 {
        return false;
    }
    if class == BPF_ALU && op != BPF_END {
        return false;
    }
    let mode_mem = matches!(mode, BPF_MEM | BPF_PROBE_MEM | BPF_PROBE_MEM32);
    if class == BPF_LDX && mode_mem && size != BPF_DW {
        return false;
    }
    if class == BPF_STX && size != BPF_DW {
        return false;
    }
    if class == BPF_LD && matches!(mode, BPF_IND | BPF_ABS) {
        return false;
    }
    true
}

/// `bpf_insn_def32`: the 32-bit subregister the insn defines, if it
/// defines one. (Address space casts of an arena with
/// `BPF_F_NO_USER_CONV` also do, once arenas are modelled.)
pub fn bpf_insn_def32(insn: &Insn) -> Option<u8> {
    insn_def_regno(insn).filter(|_| !bpf_is_reg64(insn))
}

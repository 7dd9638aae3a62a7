//! What the ALU instructions compute on concrete values: the semantics
//! the kernel's interpreter and JITs agree on (x / 0 = 0, x % 0 = x, shift
//! amounts masked to the width, 32-bit results zero-extended), which the
//! verifier's constant folding and the model's interpreter both use.

use crate::insn::op::*;

/// A 64-bit ALU operation (`BPF_ALU64`), with the JIT's results for the
/// cases the fixups guard. `None`: not an ALU64 op with this `off`.
pub fn alu64(op: u8, off: i16, dst: u64, src: u64) -> Option<u64> {
    let (sd, ss) = (dst as i64, src as i64);
    Some(match (op, off) {
        (BPF_ADD, 0) => dst.wrapping_add(src),
        (BPF_SUB, 0) => dst.wrapping_sub(src),
        (BPF_MUL, 0) => dst.wrapping_mul(src),
        (BPF_DIV, 0) => dst.checked_div(src).unwrap_or(0),
        (BPF_DIV, 1) => match ss {
            0 => 0,
            -1 => sd.wrapping_neg() as u64,
            _ => (sd / ss) as u64,
        },
        (BPF_MOD, 0) => dst.checked_rem(src).unwrap_or(dst),
        (BPF_MOD, 1) => match ss {
            0 => dst,
            -1 => 0,
            _ => (sd % ss) as u64,
        },
        (BPF_OR, 0) => dst | src,
        (BPF_AND, 0) => dst & src,
        (BPF_XOR, 0) => dst ^ src,
        (BPF_LSH, 0) => dst << (src & 63),
        (BPF_RSH, 0) => dst >> (src & 63),
        (BPF_ARSH, 0) => (sd >> (src & 63)) as u64,
        (BPF_NEG, 0) => dst.wrapping_neg(),
        (BPF_MOV, 0) => src,
        (BPF_MOV, 8) => src as i8 as i64 as u64,
        (BPF_MOV, 16) => src as i16 as i64 as u64,
        (BPF_MOV, 32) => src as i32 as i64 as u64,
        _ => return None,
    })
}

/// A 32-bit ALU operation (`BPF_ALU`); the result is zero-extended.
pub fn alu32(op: u8, off: i16, dst: u64, src: u64) -> Option<u64> {
    let (d, s) = (dst as u32, src as u32);
    let (sd, ss) = (d as i32, s as i32);
    let r: u32 = match (op, off) {
        (BPF_ADD, 0) => d.wrapping_add(s),
        (BPF_SUB, 0) => d.wrapping_sub(s),
        (BPF_MUL, 0) => d.wrapping_mul(s),
        (BPF_DIV, 0) => d.checked_div(s).unwrap_or(0),
        (BPF_DIV, 1) => match ss {
            0 => 0,
            -1 => sd.wrapping_neg() as u32,
            _ => (sd / ss) as u32,
        },
        (BPF_MOD, 0) => d.checked_rem(s).unwrap_or(d),
        (BPF_MOD, 1) => match ss {
            0 => d,
            -1 => 0,
            _ => (sd % ss) as u32,
        },
        (BPF_OR, 0) => d | s,
        (BPF_AND, 0) => d & s,
        (BPF_XOR, 0) => d ^ s,
        (BPF_LSH, 0) => d << (s & 31),
        (BPF_RSH, 0) => d >> (s & 31),
        (BPF_ARSH, 0) => (sd >> (s & 31)) as u32,
        (BPF_NEG, 0) => d.wrapping_neg(),
        (BPF_MOV, 0) => s,
        (BPF_MOV, 8) => s as i8 as i32 as u32,
        (BPF_MOV, 16) => s as i16 as i32 as u32,
        _ => return None,
    };
    Some(r as u64)
}

/// `BPF_END`: `le`/`be` (class ALU, to little or big endian, truncating
/// to the width) and `bswap` (class ALU64, unconditional swap).
pub fn endian(class: u8, to_be: bool, imm: i32, dst: u64) -> Option<u64> {
    let swap = class == BPF_ALU64 || to_be;
    if class == BPF_ALU64 && to_be {
        return None;
    }
    Some(match (imm, swap) {
        (16, false) => dst as u16 as u64,
        (32, false) => dst as u32 as u64,
        (64, false) => dst,
        (16, true) => (dst as u16).swap_bytes() as u64,
        (32, true) => (dst as u32).swap_bytes() as u64,
        (64, true) => dst.swap_bytes(),
        _ => return None,
    })
}

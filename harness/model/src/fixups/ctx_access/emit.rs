//! The insn builders the conversions are written with (`BPF_LDX_MEM`,
//! `BPF_JMP_IMM`, ... of `include/linux/filter.h`).

use bpf_isa::Insn;
use bpf_isa::op::*;

/// `BPF_LDX_MEM(size, dst, src, off)`.
pub fn ldx(size: u8, dst: u8, src: u8, off: i16) -> Insn {
    Insn::new(BPF_LDX | size | BPF_MEM, dst, src, off, 0)
}

/// `BPF_EMIT_STORE(size, si, off)`: the store `si` (ST or STX) redirected
/// to `off` with `size`.
pub fn emit_store(si: &Insn, size: u8, off: i16) -> Insn {
    Insn::new((si.code & 0x07) | size | BPF_MEM, si.dst, si.src, off, si.imm)
}

/// `BPF_JMP_IMM(op, dst, imm, off)`.
pub fn jmp_imm(op: u8, dst: u8, imm: i32, off: i16) -> Insn {
    Insn::new(BPF_JMP | op | BPF_K, dst, 0, off, imm)
}

/// `BPF_JMP32_IMM(op, dst, imm, off)`.
pub fn jmp32_imm(op: u8, dst: u8, imm: i32, off: i16) -> Insn {
    Insn::new(BPF_JMP32 | op | BPF_K, dst, 0, off, imm)
}

/// `BPF_JMP_A(off)`.
pub fn jmp_a(off: i16) -> Insn {
    Insn::new(BPF_JMP | BPF_JA, 0, 0, off, 0)
}

/// `BPF_ALU32_IMM(op, dst, imm)`.
pub fn alu32_imm(op: u8, dst: u8, imm: i32) -> Insn {
    Insn::new(BPF_ALU | op | BPF_K, dst, 0, 0, imm)
}

/// `BPF_ALU64_IMM(op, dst, imm)`.
pub fn alu64_imm(op: u8, dst: u8, imm: i32) -> Insn {
    Insn::new(BPF_ALU64 | op | BPF_K, dst, 0, 0, imm)
}

/// `BPF_ALU64_REG(op, dst, src)`.
pub fn alu64_reg(op: u8, dst: u8, src: u8) -> Insn {
    Insn::new(BPF_ALU64 | op | BPF_X, dst, src, 0, 0)
}

/// `BPF_MOV64_IMM(dst, imm)`.
pub fn mov64_imm(dst: u8, imm: i32) -> Insn {
    alu64_imm(BPF_MOV, dst, imm)
}

/// `BPF_MOV64_REG(dst, src)`.
pub fn mov64_reg(dst: u8, src: u8) -> Insn {
    alu64_reg(BPF_MOV, dst, src)
}

/// `BPF_ST_NOSPEC()`: the speculation barrier.
pub fn st_nospec() -> Insn {
    Insn::new(BPF_ST | BPF_NOSPEC, 0, 0, 0, 0)
}

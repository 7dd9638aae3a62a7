//! The kernel's insn macros (`BPF_ALU64_IMM`, `BPF_LDX_MEM`, ...) the
//! rewrites are written with, so that a sequence reads like its 7.3
//! counterpart.

use bpf_isa::Insn;
use bpf_isa::op::*;

pub const R0: u8 = 0;
pub const R1: u8 = 1;
pub const R2: u8 = 2;
pub const R3: u8 = 3;
pub const R4: u8 = 4;
pub const R5: u8 = 5;
pub const R10: u8 = 10;

pub fn alu64_imm(op: u8, dst: u8, imm: i32) -> Insn {
    Insn::new(BPF_ALU64 | op | BPF_K, dst, 0, 0, imm)
}
pub fn alu32_imm(op: u8, dst: u8, imm: i32) -> Insn {
    Insn::new(BPF_ALU | op | BPF_K, dst, 0, 0, imm)
}
pub fn alu64_reg(op: u8, dst: u8, src: u8) -> Insn {
    Insn::new(BPF_ALU64 | op | BPF_X, dst, src, 0, 0)
}
pub fn alu32_reg(op: u8, dst: u8, src: u8) -> Insn {
    Insn::new(BPF_ALU | op | BPF_X, dst, src, 0, 0)
}
pub fn mov64_imm(dst: u8, imm: i32) -> Insn {
    alu64_imm(BPF_MOV, dst, imm)
}
pub fn mov32_imm(dst: u8, imm: i32) -> Insn {
    alu32_imm(BPF_MOV, dst, imm)
}
pub fn mov64_reg(dst: u8, src: u8) -> Insn {
    alu64_reg(BPF_MOV, dst, src)
}
pub fn mov32_reg(dst: u8, src: u8) -> Insn {
    alu32_reg(BPF_MOV, dst, src)
}
/// `BPF_MOV64_PERCPU_REG`: `dst = this_cpu_ptr(src)`.
pub fn mov64_percpu_reg(dst: u8, src: u8) -> Insn {
    Insn::new(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, BPF_ADDR_PERCPU, 0)
}
pub fn ldx_mem(size: u8, dst: u8, src: u8, off: i16) -> Insn {
    Insn::new(BPF_LDX | size | BPF_MEM, dst, src, off, 0)
}
pub fn stx_mem(size: u8, dst: u8, src: u8, off: i16) -> Insn {
    Insn::new(BPF_STX | size | BPF_MEM, dst, src, off, 0)
}
pub fn st_mem(size: u8, dst: u8, off: i16, imm: i32) -> Insn {
    Insn::new(BPF_ST | size | BPF_MEM, dst, 0, off, imm)
}
pub fn jmp_imm(op: u8, dst: u8, imm: i32, off: i16) -> Insn {
    Insn::new(BPF_JMP | op | BPF_K, dst, 0, off, imm)
}
pub fn jmp32_imm(op: u8, dst: u8, imm: i32, off: i16) -> Insn {
    Insn::new(BPF_JMP32 | op | BPF_K, dst, 0, off, imm)
}
pub fn jmp32_reg(op: u8, dst: u8, src: u8, off: i16) -> Insn {
    Insn::new(BPF_JMP32 | op | BPF_X, dst, src, off, 0)
}
/// `BPF_JMP_A(off)`.
pub fn ja(off: i16) -> Insn {
    Insn::new(BPF_JMP | BPF_JA, 0, 0, off, 0)
}
/// `BPF_EMIT_CALL`: a helper call with its imm already relative to
/// `__bpf_call_base`.
pub fn emit_call(imm: i32) -> Insn {
    Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, imm)
}
/// `BPF_ATOMIC_OP(BPF_DW, op, dst, src, off)`.
pub fn atomic_dw(op: i32, dst: u8, src: u8, off: i16) -> Insn {
    Insn::new(BPF_STX | BPF_DW | BPF_ATOMIC, dst, src, off, op)
}
/// `BPF_LD_IMM64(dst, v)`: two slots.
pub fn ld_imm64(dst: u8, v: u64) -> [Insn; 2] {
    [Insn::new(BPF_LD | BPF_DW | BPF_IMM, dst, 0, 0, v as u32 as i32), Insn::new(0, 0, 0, 0, (v >> 32) as u32 as i32)]
}

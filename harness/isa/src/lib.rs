//! The BPF instruction set as Linux 7.3 defines it: the instruction model and
//! its wire format, an assembler for the LLVM syntax kernel selftests use, and
//! the kernel's `disasm.c` text. No heavy dependencies: the proc-macro crate
//! assembles with it at compile time.

pub mod alu;
pub mod asm;
pub mod disasm;
pub mod helper_ids;
pub mod insn;
pub mod kfunc_btf_ids;

pub use asm::{AsmError, AsmErrorKind, Operand, Program, Reloc, RelocKind, assemble, assemble_bytes, assemble_bytes_with, assemble_with};
pub use insn::{Insn, op};

//! Arbitrary bytes to the assembler, with operands: an error or a program,
//! never a panic or a stack overflow. Inputs starting with 0xfe are recipes
//! for large and deeply nested texts (`asm_gen.rs`), assembled on a thread
//! with a 2 MiB stack.
#![no_main]

use bpf_isa::{Operand, assemble_bytes_with};
use libfuzzer_sys::fuzz_target;

#[path = "asm_gen.rs"]
mod asm_gen;

fn assemble(text: &[u8]) {
    let ops = |name: &str| match name.len() % 3 {
        0 => Some(Operand::Imm(name.len() as i64 - 4)),
        1 => Some(Operand::Sym(name.to_string())),
        _ => None,
    };
    match assemble_bytes_with(text, &ops) {
        Ok(p) => {
            assert!(p.insns.len() <= bpf_isa::asm::MAX_PROG_INSNS);
            let _ = bpf_isa::disasm::xlated_dump(&p.insns);
        }
        Err(e) => asm_gen::check_error(text, &e),
    }
}

fuzz_target!(|data: &[u8]| {
    match asm_gen::text(data) {
        (text, true) => asm_gen::on_small_stack(|| assemble(&text)),
        (text, false) => assemble(&text),
    }
});

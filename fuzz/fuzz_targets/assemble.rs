//! Arbitrary text to the assembler, with operands: an error or a program,
//! never a panic.
#![no_main]

use bpf_isa::{Operand, assemble_with};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let ops = |name: &str| match name.len() % 3 {
        0 => Some(Operand::Imm(name.len() as i64 - 4)),
        1 => Some(Operand::Sym(name.to_string())),
        _ => None,
    };
    if let Ok(p) = assemble_with(&text, &ops) {
        let _ = bpf_isa::disasm::xlated_dump(&p.insns);
    }
});

//! Arbitrary bytes as instructions: decoding and both disasm.c forms must
//! never panic.
#![no_main]

use bpf_isa::disasm::{NoCallbacks, log_listing, xlated_dump};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let whole = data.len() / 8 * 8;
    if let Some(insns) = bpf_isa::insn::decode_all(&data[..whole]) {
        let _ = xlated_dump(&insns);
        let _ = log_listing(&insns, &NoCallbacks, data.first().is_some_and(|b| b & 1 == 1));
    }
});

//! Arbitrary bytes as a `BPF_PROG_LOAD`: four bytes choose the program
//! type, log level and buffer, flags, capabilities and arch; the rest is
//! the insn stream. Through the model's whole load pipeline (front end,
//! main pass, fixups, the JIT when accepted): see `common::load_and_check`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let cfg = [data[0], data[1], data[2], data[3]];
    let body = &data[4..];
    let Some(insns) = bpf_isa::insn::decode_all(&body[..body.len() / 8 * 8]) else { return };
    let _ = common::load_and_check(&common::input_from_config(cfg, insns));
});

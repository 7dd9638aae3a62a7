//! Arbitrary text through the assembler, and what assembles through the
//! model's load pipeline (four leading bytes choose the load attributes as
//! in `verify_raw`); `arr`/`h` name the two maps, any other symbol a
//! helper or kfunc by name is resolved as the linker does. The text may be
//! a recipe for a large or deeply nested one (`asm_gen.rs`), assembled on a
//! thread with a 2 MiB stack.
#![no_main]

use bpf_selftest::link::{Symbols, link};
use bpf_selftest::backend::model::ModelBackend;
use bpf_selftest::backend::{BtfMode, LoadRequest};
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;
#[path = "asm_gen.rs"]
mod asm_gen;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let cfg = [data[0], data[1], data[2], data[3]];
    let (text, recipe) = asm_gen::text(&data[4..]);
    let prog = if recipe { asm_gen::on_small_stack(|| bpf_isa::assemble_bytes(&text)) } else { bpf_isa::assemble_bytes(&text) };
    let prog = match prog {
        Ok(p) => p,
        Err(e) => {
            asm_gen::check_error(&text, &e);
            return;
        }
    };
    drop(text);
    let proto = common::input_from_config(cfg, Vec::new());
    let defs: Vec<_> = proto.maps.iter().map(|m| m.def.clone()).collect();
    let Ok(linked) = link("fuzz", &prog, &Symbols { maps: &defs, ..Default::default() }) else { return };
    let req = LoadRequest {
        name: "fuzz".into(),
        prog: linked,
        prog_type: proto.prog_type,
        expected_attach_type: None,
        attach_func: None,
        prog_flags: proto.prog_flags,
        log_level: proto.log_level,
        unpriv: !proto.caps.bpf_capable(),
        caps_unpriv: Vec::new(),
        maps: defs,
        btf: if cfg[3] & 0x40 != 0 { BtfMode::FuncInfo } else { BtfMode::None },
        test_run: None,
        arch: proto.arch,
        want_jited: false,
        license: "GPL".into(),
        privileged_setup: false,
        log_size: bpf_selftest::backend::loader::LOG_BUF_SIZE,
        create_every_map: false,
        scenario: Default::default(),
    };
    if ModelBackend::create_maps(&req).is_some() {
        return;
    }
    let Ok(mut input) = ModelBackend::verifier_input(&req) else { return };
    input.log_size = proto.log_size;
    input.gpl = proto.gpl;
    input.verification_time_usec = Some(0);
    let _ = common::load_and_check(&input);
});

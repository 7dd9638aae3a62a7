//! The soundness run's structured generator (`soundness::random_prog`)
//! with the fuzzer's bytes as its decisions: programs shaped like the ones
//! the verifier reasons about (bounds games, spills, map values after null
//! checks, loops, calls, iterators), loaded as the soundness run loads
//! them (socket filter, map `arr`, level 1, unpriv now and then), then on
//! the other arch and at level 2 as well.
#![no_main]

use bpf_selftest::backend::model::ModelBackend;
use bpf_selftest::soundness::{self, random_prog};
use bpf_selftest::target::Arch;
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let p = random_prog::generate(&mut random_prog::ByteTape(data));
    for (arch, level) in [(Arch::X86_64, 1), (Arch::Arm64, 2)] {
        let req = match soundness::request("fuzz", &p, arch) {
            Ok(r) => r,
            Err(e) => panic!("a generated program does not assemble: {e}\n{}", p.asm),
        };
        let Ok(mut input) = ModelBackend::verifier_input(&req) else { return };
        input.log_level = level;
        input.verification_time_usec = Some(0);
        let _ = common::load_and_check(&input);
    }
});

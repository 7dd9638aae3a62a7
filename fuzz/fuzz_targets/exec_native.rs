//! Differential execution: programs of the soundness generator (the
//! fuzzer's bytes as its decisions) that the model accepts on x86_64, run
//! by the interpreter and as the x86-64 JIT's machine code on the same
//! runtime layout (`exec::native::compare_with_interpreter`). Retval,
//! `data_out` and the ctx handed back must be identical. Only on x86-64
//! Linux hosts.
#![no_main]

use bpf_selftest::backend::TestRunInput;
use bpf_selftest::backend::model::ModelBackend;
use bpf_selftest::exec::native::{self, Comparison};
use bpf_selftest::exec::ExecOptions;
use bpf_selftest::soundness::{self, random_prog};
use bpf_selftest::target::Arch;
use bpf_selftest::load::bpf_check;
use bpf_selftest::verifier::Verdict;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if native::unavailable().is_some() {
        return;
    }
    let p = random_prog::generate(&mut random_prog::ByteTape(data));
    let Ok(mut req) = soundness::request("fuzz", &p, Arch::X86_64) else { return };
    req.log_level = 0;
    let input = TestRunInput::test_loader(bpf_selftest::prog_type::SOCKET_FILTER);
    req.test_run = Some(input.clone());
    let Ok(vin) = ModelBackend::verifier_input(&req) else { return };
    let Verdict::Decided(d) = bpf_check(&vin) else { return };
    if !d.accepted {
        return;
    }
    let opts = ExecOptions { arch: Arch::X86_64, insn_budget: 50_000_000, ..ExecOptions::default() };
    if let Comparison::Differs(why) = native::compare_with_interpreter(&bpf_selftest::backend::model::loaded_prog(&req), &d.xlated_as_run(), &d.subprogs, &input, &opts) {
        panic!("native differs from the interpreter: {why}\n{}", p.asm);
    }
});

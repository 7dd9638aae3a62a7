//! Differential execution: programs of the soundness generator (the
//! fuzzer's bytes as its decisions) that the model accepts on x86_64, run
//! by the interpreter and as the x86-64 JIT's machine code on the same
//! runtime (`exec::native`). Retval, `data_out` and the ctx handed back
//! must be identical. Only on x86-64 Linux hosts.
#![no_main]

use bpf_selftest::backend::TestRunInput;
use bpf_selftest::backend::model::ModelBackend;
use bpf_selftest::exec::{ExecError, ExecOptions, native};
use bpf_selftest::soundness::{self, random_prog};
use bpf_selftest::target::Arch;
use bpf_selftest::verifier::{Verdict, bpf_check};
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
    let interp = native::test_run_interp_host(&req, &d.xlated, &input, &opts);
    if matches!(interp, Err(ExecError::Unsupported(_)) | Err(ExecError::Budget(_))) {
        return;
    }
    let nat = native::test_run_native(&req, &d.xlated, &d.subprogs, &input, &opts);
    if matches!(nat, Err(ExecError::Unsupported(_))) {
        return;
    }
    let same = match (&interp, &nat) {
        (Ok(a), Ok(b)) => a.retval == b.retval && a.data_out == b.data_out && a.ctx_out == b.ctx_out,
        (Err(a), Err(b)) => a == b,
        _ => false,
    };
    assert!(same, "native differs from the interpreter:\ninterpreter {interp:?}\nnative {nat:?}\n{}", p.asm);
});

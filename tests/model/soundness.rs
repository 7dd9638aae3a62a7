//! Soundness: random programs (`bpf_selftest::soundness`) through the model,
//! and against Linux 7.3 under QEMU: the model must never accept a program
//! 7.3 rejects. The run under QEMU is a sweep of half a minute, out of a
//! plain `cargo test`: CI runs it (`.ci/run`), and so does `cargo test
//! --test model -- --ignored --exact soundness::no_unsound_accepts_against_7_3`.
//! (`bpf-selftest soundness` runs the large differential runs; CI runs
//! 10,000 programs per arch.)

use std::time::{Duration, Instant};

use bpf_selftest::backend::Backend;
use bpf_selftest::backend::vm::VmBackend;
use bpf_selftest::require::{self, Component};
use bpf_selftest::soundness::{self, Category, ModelVerdict, random_prog};
use bpf_selftest::target::Arch;

/// Every random program gets an answer from the model (no panic), quickly.
#[test]
fn model_answers_random_programs() {
    let mut rng = random_prog::Rng(7);
    let mut slowest = Duration::ZERO;
    let (mut accepted, mut rejected) = (0, 0);
    for i in 0..2000 {
        let p = random_prog::generate(&mut rng);
        let req = soundness::request(&format!("random/{i}"), &p, Arch::X86_64).unwrap();
        let t0 = Instant::now();
        match soundness::model_verdict(&req) {
            ModelVerdict::Accepted | ModelVerdict::AcceptedUpToFixups => accepted += 1,
            ModelVerdict::Rejected { .. } => rejected += 1,
            ModelVerdict::Undecided(_) => {}
        }
        slowest = slowest.max(t0.elapsed());
    }
    eprintln!("2000 random programs: {accepted} accepted, {rejected} rejected, slowest {slowest:?}");
    assert!(accepted > 200 && rejected > 200, "the generator mixes valid and invalid programs");
    assert!(slowest < Duration::from_secs(5), "a small random program took {slowest:?}");
}

/// 500 random programs against 7.3 under QEMU (x86_64): no unsound accept.
#[test]
#[ignore = "a sweep under QEMU (500 programs, half a minute): CI runs it, see .ci/run"]
fn no_unsound_accepts_against_7_3() {
    let vm = VmBackend::from_env();
    if let Err(e) = vm.probe(Arch::X86_64) {
        require::skip(Component::Vm, &e.0);
        return;
    }
    let report = soundness::run(&vm, Arch::X86_64, 42, 500).unwrap();
    eprint!("{}", report.table());
    for f in report.findings.iter().filter(|f| f.category == Category::Unsound) {
        eprintln!("unsound: {} (kernel errno {}: {})\n{}", f.name, f.kernel_errno, f.kernel_log_tail, f.asm);
    }
    assert_eq!(report.unsound(), 0);
    assert_eq!(report.total(), 500, "every program got a kernel answer");
}

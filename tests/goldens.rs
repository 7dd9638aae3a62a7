//! The suites' annotations against recorded truth: every program of progs/
//! is replayed from its goldens (what 7.3 did with it, `bpf-selftest
//! record`) through the runner, on x86_64 and arm64. An expectation the
//! kernel does not meet, or a program without goldens, fails here.

use std::path::PathBuf;

use bpf_selftest::backend::replay::ReplayBackend;
use bpf_selftest::runner::{self, Plan, RunOptions, Verdict};
use bpf_selftest::target::Arch;
use bpf_selftest_suite as _;

#[test]
fn annotations_hold_on_the_recorded_7_3_outcomes() {
    let be = ReplayBackend::new(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expected"));
    let mut failures = Vec::new();
    let mut checked = 0;
    for arch in [Arch::X86_64, Arch::Arm64] {
        let opts = RunOptions { arch, backend: "replay".into(), verbosity: 0, filters: Vec::new() };
        for st in runner::plan(&opts, &be) {
            if let Plan::Skip(_) = st.plan {
                continue;
            }
            checked += 1;
            let (verdict, report) = runner::run_subtest(&st, &be, &opts);
            match verdict {
                Verdict::Ok => {}
                Verdict::Skip(why) => failures.push(format!("{arch} {}: no outcome: {why}", st.name)),
                Verdict::Fail(_) => failures.push(format!("{arch} {}:\n{report}", st.name)),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(checked >= 2, "only {checked} subtests replayed");
}

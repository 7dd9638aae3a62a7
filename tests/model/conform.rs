//! The model against the recorded 7.3 outcomes of progs/: every difference
//! must be listed in expected/KNOWN_DIVERGENCES with its reason. Programs
//! the model cannot answer yet are counted (and printed), not failed: the
//! runner skips their tests with the same reason.

use std::path::PathBuf;

use bpf_selftest::backend::replay::ReplayBackend;
use bpf_selftest::conform::{KnownDivergences, Report, against_goldens};
use bpf_selftest::target::Arch;
use bpf_selftest_suite as _;

/// One arch's programs through the model against their goldens (the two
/// arches are two tests, run side by side).
fn model_matches_the_goldens_up_to_known_divergences(arch: Arch) {
    let expected = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expected");
    let known = KnownDivergences::load(&expected.join("KNOWN_DIVERGENCES")).expect("KNOWN_DIVERGENCES parses");
    let replay = ReplayBackend::new(expected);
    let model = bpf_selftest::backend::by_name("model").unwrap();
    let mut report = Report::default();
    against_goldens(model.as_ref(), &replay, arch, &known, &mut report);
    eprintln!("{}", report.render(50));
    let total: usize = report.counts.values().map(|c| c.0).sum();
    assert!(total >= 1, "goldens of progs/ were found for {arch} ({total})");
    let bad: Vec<String> = report.unexplained().map(|(a, p, m, _)| format!("{a} {p} {}: {}", m.section.name(), m.detail)).collect();
    assert!(bad.is_empty(), "{} mismatches not in KNOWN_DIVERGENCES:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn x86_64_matches_the_goldens_up_to_known_divergences() {
    model_matches_the_goldens_up_to_known_divergences(Arch::X86_64);
}

#[test]
fn arm64_matches_the_goldens_up_to_known_divergences() {
    model_matches_the_goldens_up_to_known_divergences(Arch::Arm64);
}

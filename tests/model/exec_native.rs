//! Native execution of the x86-64 JIT's code (`bpf_selftest::exec::native`)
//! against the interpreter running the same xlated program in the same
//! kind of runtime (memory at host addresses): retval, `data_out` and the
//! ctx handed back must be identical.
//!
//! * every program of progs/ with a test run that the model accepts on
//!   x86_64;
//! * random programs of the soundness generator that the model accepts,
//!   test-run as socket filters: sweeps left out of a plain `cargo test`
//!   (3,000 programs, which CI runs, see `.ci/run`; and a wide run).
//!
//! Programs the native path cannot run yet (tail calls, ...) or the
//! interpreter cannot run are counted and listed, held to a ratchet. On a
//! host that is not x86-64 Linux the tests say so and pass.

use bpf_selftest::backend::model::ModelBackend;
use bpf_selftest::backend::replay::ReplayBackend;
use bpf_selftest::backend::{LoadRequest, TestRunInput};
use bpf_selftest::exec::ExecOptions;
use bpf_selftest::exec::native::{self, Comparison};
use bpf_selftest::runner::{self, Plan, RunOptions};
use bpf_selftest::soundness::{self, random_prog};
use bpf_selftest::target::Arch;
use bpf_selftest::{load::bpf_check, verifier::Verdict};
use bpf_selftest_suite as _;

/// Random programs generated (about a quarter are accepted); a wider run:
/// `BPF_SELFTEST_NATIVE_RANDOM=N`.
const RANDOM_PROGRAMS: usize = 3000;

fn random_programs() -> usize {
    std::env::var("BPF_SELFTEST_NATIVE_RANDOM").ok().and_then(|v| v.parse().ok()).unwrap_or(RANDOM_PROGRAMS)
}
const RANDOM_SEED: u64 = 0x7_3001;

/// The model's xlated program of `req`, run natively and by the
/// interpreter (`None`: the model does not accept it).
fn compare(req: &LoadRequest, input: &TestRunInput) -> Option<Comparison> {
    compare_counting_tail_calls(req, input).map(|(c, _)| c)
}

/// [`compare`], and whether the program tail-calls.
fn compare_counting_tail_calls(req: &LoadRequest, input: &TestRunInput) -> Option<(Comparison, bool)> {
    let vin = ModelBackend::verifier_input(req).ok()?;
    let Verdict::Decided(d) = bpf_check(&vin) else { return None };
    if !d.accepted {
        return None;
    }
    let opts = ExecOptions { arch: Arch::X86_64, insn_budget: 50_000_000, ..ExecOptions::default() };
    let tail_calls = d.xlated.iter().any(|i| i.is_call() && i.src == 0 && i.imm == 12);
    let xlated = d.xlated_as_run();
    Some((native::compare_with_interpreter(&bpf_selftest::backend::model::loaded_prog(req), &xlated, &d.subprogs, input, &opts), tail_calls))
}

/// The input a program without a test run of its own gets: test_loader's,
/// except for sk_lookup programs, whose run 7.3 refuses with a packet
/// (EINVAL): an AF_INET lookup (`struct bpf_sk_lookup`, family 2) there.
fn default_input(pt: bpf_selftest::prog_type::ProgType) -> TestRunInput {
    if pt == bpf_selftest::prog_type::SK_LOOKUP {
        let mut ctx = vec![0u8; 72];
        ctx[8] = 2;
        TestRunInput { data: Vec::new(), ctx: Some(ctx), data_out_size: 0, repeat: 1 }
    } else {
        TestRunInput::test_loader(pt)
    }
}

#[test]
fn native_agrees_with_the_interpreter_on_progs() {
    if let Some(why) = native::unavailable() {
        eprintln!("skipped: {why}");
        return;
    }
    let be = ReplayBackend::new(std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expected"));
    let opts = RunOptions { arch: Arch::X86_64, backend: "replay".into(), verbosity: 0, filters: Vec::new() };
    let (mut same, mut skipped, mut differs) = (0, Vec::new(), Vec::new());
    let mut tail_call_same = 0;
    // programs without a test run of their own: run on test_loader's input
    let (mut same_default, mut skipped_default, mut differs_default) = (0, Vec::new(), Vec::new());
    for st in runner::plan(&opts, &be) {
        let Plan::Load(job) = &st.plan else { continue };
        let Some(input) = job.request.test_run.clone() else {
            let input = default_input(job.request.prog_type);
            match compare(&job.request, &input) {
                None => {}
                Some(Comparison::Same) => same_default += 1,
                Some(Comparison::Skipped(why)) => skipped_default.push(format!("{}: {why}", st.name)),
                Some(Comparison::Differs(d)) => differs_default.push(format!("{}: {d}", st.name)),
            }
            continue;
        };
        match compare_counting_tail_calls(&job.request, &input) {
            None => {}
            Some((Comparison::Same, tail_calls)) => {
                same += 1;
                tail_call_same += usize::from(tail_calls);
            }
            Some((Comparison::Skipped(why), _)) => skipped.push(format!("{}: {why}", st.name)),
            Some((Comparison::Differs(d), _)) => differs.push(format!("{}: {d}", st.name)),
        }
    }
    eprintln!(
        "progs/ on x86_64: {} accepted programs without a test run, run on test_loader's input (sk_lookup: an AF_INET lookup): {same_default} identical natively, {} differ, {} not run (not modelled)",
        same_default + skipped_default.len() + differs_default.len(),
        differs_default.len(),
        skipped_default.len()
    );
    for s in &skipped_default {
        eprintln!("  not run: {s}");
    }
    // every progs/ program without a test run of its own runs natively on
    // the default input
    assert!(skipped_default.is_empty(), "{} not run", skipped_default.len());
    // pointers too (a returned stack or ctx pointer): both runs share one
    // layout of host memory
    assert!(differs_default.is_empty(), "native differs from the interpreter:\n{}", differs_default.join("\n"));
    assert!(same_default > 0);
    eprintln!(
        "progs/ on x86_64: {} accepted programs with a test run: {same} identical natively, {} differ, {} not run natively",
        same + differs.len() + skipped.len(),
        differs.len(),
        skipped.len()
    );
    for s in &skipped {
        eprintln!("  not run: {s}");
    }
    eprintln!("  of them tail-calling (the JIT's inline tail call through the prog array's ptrs[]): {tail_call_same} identical");
    assert!(differs.is_empty(), "native differs from the interpreter:\n{}", differs.join("\n"));
    assert!(same > 0);
    // retvals/tail_call_self_counts, _from_subprog_counts, _index_out_of_range
    assert!(tail_call_same >= 3, "only {tail_call_same} tail-calling programs ran natively");
    // every one runs natively, arena programs included (their window is
    // reserved in the host process)
    assert!(skipped.is_empty(), "{} not run natively", skipped.len());
}

#[test]
#[ignore = "a sweep of 3,000 random programs: CI runs it, see .ci/run"]
fn native_agrees_with_the_interpreter_on_random_programs() {
    let same = random_run(random_programs(), RANDOM_SEED);
    if let Some(same) = same {
        assert!(same > 100, "only {same} random programs compared");
    }
}

/// Programs a wide run generates: about a quarter are accepted, so some
/// 5,000 compared.
const WIDE_RANDOM_PROGRAMS: usize = 21_000;
const WIDE_RANDOM_SEED: u64 = 0x7_3002;

/// The wide random differential run: `cargo test --test model --
/// --ignored exec_native::native_agrees_with_the_interpreter_on_a_wide`
/// (several minutes).
#[test]
#[ignore = "a wide random run (about 5,000 accepted programs, minutes): --ignored"]
fn native_agrees_with_the_interpreter_on_a_wide_random_run() {
    if let Some(same) = random_run(WIDE_RANDOM_PROGRAMS, WIDE_RANDOM_SEED) {
        assert!(same >= 4_000, "only {same} random programs compared");
    }
}

/// `n` random programs of `seed` the model accepts, test-run as socket
/// filters natively and by the interpreter: none may differ, few may be
/// skipped. How many were identical (`None`: no native runs here).
fn random_run(n: usize, seed: u64) -> Option<usize> {
    if let Some(why) = native::unavailable() {
        eprintln!("skipped: {why}");
        return None;
    }
    let mut rng = random_prog::Rng(seed);
    let (mut same, mut skipped, mut differs) = (0, Vec::new(), Vec::new());
    let input = TestRunInput::test_loader(bpf_selftest::prog_type::SOCKET_FILTER);
    for i in 0..n {
        let p = random_prog::generate(&mut rng);
        let Ok(mut req) = soundness::request(&format!("random/{i}"), &p, Arch::X86_64) else { continue };
        req.log_level = 0;
        req.test_run = Some(input.clone());
        match compare(&req, &input) {
            None => {}
            Some(Comparison::Same) => same += 1,
            Some(Comparison::Skipped(why)) => skipped.push(format!("random/{i}: {why}")),
            Some(Comparison::Differs(d)) => differs.push(format!("random/{i}: {d}\n{}", p.asm)),
        }
    }
    eprintln!(
        "{n} random programs (seed {seed:#x}): {} accepted, {same} identical natively, {} differ, {} not run natively",
        same + differs.len() + skipped.len(),
        differs.len(),
        skipped.len()
    );
    for s in skipped.iter().take(20) {
        eprintln!("  not run: {s}");
    }
    assert!(differs.is_empty(), "native differs from the interpreter:\n{}", differs.join("\n"));
    assert!(skipped.len() * 10 <= same, "{} skipped", skipped.len());
    Some(same)
}

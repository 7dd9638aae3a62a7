//! The interpreter (`bpf_selftest::exec`) against what 7.3 returned for the
//! same test runs:
//!
//! * the corpus of `tests/exec/*.s` (small programs, one per ALU op and
//!   width, edge case, memory and atomic form, call, map, helper, kfunc and
//!   ctx field) and a seeded random corpus of straight-line ALU/jump/stack
//!   programs ([`random`]), each run by 7.3 on x86_64 and arm64 under QEMU
//!   and recorded in `expected/exec/linux-7.3-<arch>.txt` by
//!   `bpf-selftest record --set exec` (`bpf_selftest::recorded::exec_corpus`);
//! * every program of progs/ whose golden has a test run.
//!
//! Nothing here compares the interpreter with itself: every expected value
//! is a real kernel's.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use bpf_selftest::backend::replay::ReplayBackend;
use bpf_selftest::backend::{Backend, LoadOutcome, LoadRequest};
use bpf_selftest::exec::{self, ExecError};
use bpf_selftest::recorded::exec_corpus::{self, Case, digest};
use bpf_selftest::require::{self, Component};
use bpf_selftest::runner::{self, Plan, RunOptions};
use bpf_selftest::target::Arch;
use bpf_selftest_suite as _;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn corpus() -> Vec<Case> {
    exec_corpus::corpus(&root().join("tests/exec")).unwrap_or_else(|e| panic!("{e}"))
}

fn interp_line(req: &LoadRequest) -> String {
    let input = req.test_run.clone().expect("a test run");
    match bpf_selftest::backend::model::test_run(req, &input) {
        Ok(out) => {
            let mut s = format!("retval {:#x}", out.retval);
            if !out.data_out.is_empty() {
                s.push_str(" data ");
                for b in &out.data_out {
                    let _ = write!(s, "{b:02x}");
                }
            }
            s
        }
        Err(ExecError::TestRun(e)) => format!("errno {e}"),
        Err(e) => format!("interpreter error: {e}"),
    }
}

fn golden_path(arch: Arch) -> PathBuf {
    exec_corpus::golden_path(&root().join("expected"), arch)
}

/// `name digest: outcome` per line.
fn read_golden(arch: Arch) -> BTreeMap<String, (String, String)> {
    let Ok(text) = std::fs::read_to_string(golden_path(arch)) else {
        return BTreeMap::new();
    };
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let (head, outcome) = l.split_once(": ")?;
            let (name, dig) = head.split_once(' ')?;
            Some((name.to_string(), (dig.to_string(), outcome.to_string())))
        })
        .collect()
}

#[test]
fn interpreter_agrees_with_7_3_on_the_corpus() {
    let cases = corpus();
    let mut report = Vec::new();
    let mut compared = 0;
    let mut as_loaded_arena = Vec::new();
    for arch in [Arch::X86_64, Arch::Arm64] {
        let golden = read_golden(arch);
        assert!(!golden.is_empty(), "no goldens in {}; run bpf-selftest record --set exec", golden_path(arch).display());
        for c in &cases {
            let req = c.request(arch).unwrap_or_else(|e| panic!("{}: {e}", c.name));
            let Some((dig, want)) = golden.get(&c.name) else {
                report.push(format!("{arch} {}: no golden; run bpf-selftest record --set exec", c.name));
                continue;
            };
            if *dig != digest(&req) {
                report.push(format!("{arch} {}: the golden is of another version of the program; re-record", c.name));
                continue;
            }
            if want.starts_with("rejected") {
                report.push(format!("{arch} {}: 7.3 rejects it ({want}); fix the case", c.name));
                continue;
            }
            let got = interp_line(&req);
            let kernel_ctx_run = c.name.starts_with("flow_dissector_") || c.name.starts_with("sk_lookup_");
            if got.starts_with(AS_LOADED_ARENA) && c.name.starts_with("arena_")
                || got.starts_with(AS_LOADED_KERNEL_CTX) && kernel_ctx_run
                || got.starts_with(AS_LOADED_CAST_TO_KERN_CTX) && c.name.starts_with("kern_ctx_")
            {
                // only the xlated program's accesses are arena ones: the
                // xlated/native test below runs these
                as_loaded_arena.push(format!("{arch} {}", c.name));
                continue;
            }
            compared += 1;
            if got != *want {
                report.push(format!("{arch} {}:\n  7.3:         {want}\n  interpreter: {got}", c.name));
            }
        }
    }
    eprintln!("{compared} runs compared ({} cases, 2 arches)", cases.len());
    eprintln!("  not run as loaded (arena, flow_dissector, sk_lookup, kern_ctx programs): {}", as_loaded_arena.join(", "));
    assert!(as_loaded_arena.len() <= AS_LOADED_ARENA_RATCHET, "{} cases not run as loaded", as_loaded_arena.len());
    assert!(report.is_empty(), "{} differences from 7.3:\n{}", report.len(), report.join("\n"));
}

/// The program as loaded casts to arena pointers, which only the
/// verifier turns into `BPF_PROBE_MEM32` accesses: tests/exec/arena.s
/// runs as xlated programs only (both arches: 2 x 9 cases).
const AS_LOADED_ARENA: &str = "interpreter error: not modelled yet: arena addr_space_cast";
/// flow_dissector and sk_lookup test runs hand the program the kernel's
/// ctx object, which only the xlated program (its ctx accesses converted)
/// reads: tests/exec/test_runs.s's 3 such cases, on both arches.
const AS_LOADED_KERNEL_CTX: &str = "interpreter error: not modelled yet: test runs of ";
/// Likewise `bpf_cast_to_kern_ctx`, which the fixups inline as `r0 = r1`
/// once the ctx is the kernel's object (tests/exec/test_runs.s's
/// `kern_ctx_` case, on both arches).
const AS_LOADED_CAST_TO_KERN_CTX: &str = "interpreter error: not modelled yet: bpf_cast_to_kern_ctx";
const AS_LOADED_ARENA_RATCHET: usize = 18 + 6 + 2;

/// What a model run gave, in the goldens' form.
fn run_line(r: &Result<exec::TestRunOutput, ExecError>) -> String {
    match r {
        Ok(out) => {
            let mut s = format!("retval {:#x}", out.retval);
            if !out.data_out.is_empty() {
                s.push_str(" data ");
                for b in &out.data_out {
                    let _ = write!(s, "{b:02x}");
                }
            }
            s
        }
        Err(ExecError::TestRun(e)) => format!("errno {e}"),
        Err(e) => format!("error: {e}"),
    }
}

/// The corpus as the model backend runs it: the model's xlated program
/// through the interpreter, and on an x86-64 Linux host the x86-64 JIT's
/// code of it natively; both against what 7.3 returned. Runs the model
/// cannot do yet are counted and listed (ratchets), never guessed.
#[test]
fn xlated_and_native_runs_agree_with_7_3_on_the_corpus() {
    use bpf_selftest::backend::model::ModelBackend;
    use bpf_selftest::{load::bpf_check, verifier::Verdict};
    let cases = corpus();
    let mut report = Vec::new();
    let (mut xlated, mut fallback, mut native, mut native_skipped) = (0, Vec::new(), 0, Vec::new());
    for arch in [Arch::X86_64, Arch::Arm64] {
        let golden = read_golden(arch);
        for c in &cases {
            let req = c.request(arch).unwrap_or_else(|e| panic!("{}: {e}", c.name));
            let Some((dig, want)) = golden.get(&c.name) else { continue };
            if *dig != digest(&req) || want.starts_with("rejected") {
                continue;
            }
            let vin = ModelBackend::verifier_input(&req).unwrap_or_else(|e| panic!("{}: {}", c.name, e.0));
            let Verdict::Decided(d) = bpf_check(&vin) else { continue };
            if !d.accepted {
                report.push(format!("{arch} {}: the model rejects it, 7.3 does not", c.name));
                continue;
            }
            let input = req.test_run.clone().expect("a test run");
            let opts = exec::ExecOptions { arch, ..exec::ExecOptions::default() };
            match exec::ExecProgram::from_xlated(&d.xlated_as_run(), arch, req.prog_type.0) {
                Err(why) => fallback.push(format!("{arch} {}: {why}", c.name)),
                Ok(p) => match exec::test_run_program(&bpf_selftest::backend::model::loaded_prog(&req), &p, &input, &opts) {
                    Err(ExecError::Unsupported(why)) => fallback.push(format!("{arch} {}: {why}", c.name)),
                    got => {
                        xlated += 1;
                        let got = run_line(&got);
                        if got != *want {
                            report.push(format!("{arch} {} (xlated):\n  7.3:   {want}\n  model: {got}", c.name));
                        }
                    }
                },
            }
            if arch != Arch::X86_64 || exec::native::unavailable().is_some() {
                continue;
            }
            if std::env::var_os("BPF_SELFTEST_TRACE_NATIVE").is_some() {
                eprintln!("native: {}", c.name);
            }
            match exec::native::test_run_native(&bpf_selftest::backend::model::loaded_prog(&req), &d.xlated_as_run(), &d.subprogs, &input, &opts) {
                Err(ExecError::Unsupported(why)) => native_skipped.push(format!("{}: {why}", c.name)),
                got => {
                    native += 1;
                    let got = run_line(&got);
                    // pointer values differ from the kernel's; the corpus
                    // returns none
                    if got != *want {
                        report.push(format!("x86_64 {} (native):\n  7.3:    {want}\n  native: {got}", c.name));
                    }
                }
            }
        }
    }
    eprintln!(
        "corpus: {xlated} xlated runs through the interpreter ({} not modelled), {native} native x86-64 runs ({} not run natively)",
        fallback.len(),
        native_skipped.len()
    );
    for f in &fallback {
        eprintln!("  xlated not run: {f}");
    }
    for f in &native_skipped {
        eprintln!("  native not run: {f}");
    }
    assert!(report.is_empty(), "{} differences from 7.3:\n{}", report.len(), report.join("\n"));
    // every corpus run runs the xlated program, and natively
    assert!(fallback.is_empty(), "{} xlated runs not modelled", fallback.len());
    assert!(native_skipped.is_empty(), "{} native runs not run", native_skipped.len());
}

/// Every program of progs/ with a test run, as the model backend runs it:
/// the model's xlated program (after all fixups) through the interpreter,
/// the program as loaded only where the xlated one cannot run yet (counted
/// and listed, and held to a ratchet): the retval (or test-run errno) is
/// 7.3's (the goldens do not hold `data_out`; the corpus test checks it).
#[test]
fn progs_xlated_retvals_match_their_goldens() {
    use bpf_selftest::backend::model::ModelBackend;
    let be = ReplayBackend::new(root().join("expected"));
    let mut report = Vec::new();
    let mut fallback = Vec::new();
    let (mut compared, mut xlated) = (0, 0);
    for arch in [Arch::X86_64, Arch::Arm64] {
        let opts = RunOptions { arch, backend: "replay".into(), verbosity: 0, filters: Vec::new() };
        for st in runner::plan(&opts, &be) {
            let Plan::Load(job) = &st.plan else { continue };
            let req = &job.request;
            // (a run with attached programs or globals is the model
            // backend's whole load: `conform`'s run section holds it)
            if req.test_run.is_none() || !req.scenario.is_empty() {
                continue;
            }
            let Ok(g) = be.golden(req) else { continue };
            if !g.accepted {
                continue;
            }
            let Ok(input) = ModelBackend::verifier_input(req) else { continue };
            let Ok((mut out, as_run)) = ModelBackend::load_input_as_run(&input, false, None) else { continue };
            if !out.accepted {
                continue;
            }
            compared += 1;
            match bpf_selftest::backend::model::fill_outcome_model(req, &as_run, &mut out) {
                Ok(exec::RunPath::Xlated) => xlated += 1,
                Ok(exec::RunPath::AsLoaded(why)) => fallback.push(format!("{arch} {}: {why}", st.name)),
                Err(e) => {
                    report.push(format!("{arch} {}: {e}", st.name));
                    continue;
                }
            }
            if out.retval != g.retval || out.test_run_errno != g.test_run_errno {
                report.push(format!(
                    "{arch} {}: 7.3 retval {:?} errno {}; model retval {:?} errno {}",
                    st.name, g.retval, g.test_run_errno, out.retval, out.test_run_errno
                ));
            }
        }
    }
    eprintln!("{compared} test runs of progs/ through the model: {xlated} ran the xlated program, {} the program as loaded", fallback.len());
    for f in &fallback {
        eprintln!("  as loaded: {f}");
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
    // no test run falls back to the program as loaded
    assert!(fallback.is_empty(), "{} runs fell back", fallback.len());
}

/// Every program of progs/ with a test run: the interpreter's retval is the
/// one 7.3 returned (its golden).
#[test]
fn progs_retvals_match_their_goldens() {
    let be = ReplayBackend::new(root().join("expected"));
    let mut report = Vec::new();
    let mut not_modelled = Vec::new();
    let mut compared = 0;
    for arch in [Arch::X86_64, Arch::Arm64] {
        let opts = RunOptions { arch, backend: "replay".into(), verbosity: 0, filters: Vec::new() };
        for st in runner::plan(&opts, &be) {
            let Plan::Load(job) = &st.plan else { continue };
            let req = &job.request;
            // (a run with attached programs or globals is the model
            // backend's whole load: `conform`'s run section holds it)
            if req.test_run.is_none() || !req.scenario.is_empty() {
                continue;
            }
            let Ok(g) = be.golden(req) else { continue };
            if !g.accepted {
                continue;
            }
            compared += 1;
            // as the model backend will: the test-run part of its outcome
            let mut out = LoadOutcome { accepted: true, ..LoadOutcome::default() };
            let got = bpf_selftest::backend::model::fill_outcome(req, &bpf_selftest::backend::model::exec_program_as_loaded(&req.prog), &mut out);
            if let Err(exec::ExecError::Unsupported(what)) = &got {
                // not modelled: counted and said, never guessed
                not_modelled.push(format!("{arch} {}: {what}", st.name));
                continue;
            }
            if got.is_err() || out.retval != g.retval || out.test_run_errno != g.test_run_errno {
                report.push(format!(
                    "{arch} {}: 7.3 retval {:?} errno {}; interpreter retval {:?} errno {} {got:?}",
                    st.name, g.retval, g.test_run_errno, out.retval, out.test_run_errno
                ));
            }
        }
    }
    eprintln!("{compared} test runs of progs/ compared, {} not modelled yet", not_modelled.len());
    for n in &not_modelled {
        eprintln!("  not modelled: {n}");
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

/// A backend that only answers the runner's questions about 7.3 (for
/// planning the imported suites; nothing is loaded through it).
struct Plan73;

impl Backend for Plan73 {
    fn name(&self) -> &'static str {
        "plan"
    }
    fn probe(&self, _arch: Arch) -> Result<(), bpf_selftest::backend::Unavailable> {
        Ok(())
    }
    fn kernel_release(&self) -> String {
        "7.3.4+deb13".into()
    }
    fn load(&self, _req: &LoadRequest) -> Result<LoadOutcome, bpf_selftest::backend::Unavailable> {
        Err(bpf_selftest::backend::Unavailable("planning only".into()))
    }
}

/// Which program the model's test runs executed.
#[derive(Default)]
struct RunPaths {
    xlated: usize,
    /// Why the xlated program could not run, per run that fell back.
    as_loaded: Vec<String>,
    /// Fallbacks because the model has no xlated program (not accepted or
    /// not decided).
    not_accepted: usize,
}

/// A test run as the model backend does it: the model's xlated program when
/// the model accepts the load and the runtime can run it, else the program
/// as loaded.
fn model_test_run(req: &LoadRequest, input: &bpf_selftest::backend::TestRunInput, paths: &mut RunPaths) -> Result<exec::TestRunOutput, ExecError> {
    use bpf_selftest::backend::model::ModelBackend;
    use bpf_selftest::{load::bpf_check, verifier::Verdict};
    let opts = exec::ExecOptions { arch: req.arch, ..exec::ExecOptions::default() };
    let decided = ModelBackend::verifier_input(req).ok().map(|v| bpf_check(&v));
    let why = match decided {
        Some(Verdict::Decided(d)) if d.accepted => match exec::ExecProgram::from_xlated(&d.xlated_as_run(), req.arch, req.prog_type.0) {
            Ok(p) => match exec::test_run_program(&bpf_selftest::backend::model::loaded_prog(req), &p, input, &opts) {
                // what the runtime does not run (a program type's test run,
                // a kernel function's effects) is not modelled yet: not run
                // as loaded instead
                Err(ExecError::Unsupported(why)) => return Err(ExecError::Unsupported(why)),
                r => {
                    paths.xlated += 1;
                    return r;
                }
            },
            // a kernel function the runtime does not have is not run as
            // loaded either: not modelled yet
            Err(why) if why.contains("which the runtime does not have") => return Err(ExecError::Unsupported(why)),
            Err(why) => why,
        },
        _ => {
            paths.not_accepted += 1;
            "the model does not accept the load".into()
        }
    };
    // the kind of reason, without program-specific details
    let kind = why.split(" (").next().unwrap_or(&why);
    paths.as_loaded.push(kind.to_string());
    bpf_selftest::backend::model::test_run(req, input)
}

/// The test runs `expected/KERNEL_SELFTESTS_MODEL` lists as differing from
/// 7.3 on `arch` (reasons `model: test run ...`), by subtest name.
fn listed_test_run_divergences(arch: Arch) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("expected/KERNEL_SELFTESTS_MODEL");
    let text = std::fs::read_to_string(path).unwrap_or_default();
    bpf_selftest::import::known_failures(&text, arch).into_iter().filter(|(_, why)| why.starts_with("model: test run")).map(|(name, _)| name).collect()
}

/// The kernel's own `verifier_*.c` programs with `__retval` (imported from
/// the 7.3 source), run as the model backend runs them (the model's xlated
/// program; the program as loaded where that cannot run, counted): the
/// retval is the one the annotation (and so 7.3's test run) gives. Programs using what the model does not run yet
/// are counted, not failed; a wrong retval fails unless
/// `expected/KERNEL_SELFTESTS_MODEL` lists it, and a listed one that
/// agrees fails too (the list only shrinks).
#[test]
fn kernel_selftest_retvals_match_their_annotations() {
    use bpf_selftest::import;
    let Some(tree) = import::cpp::source_tree() else {
        require::skip(Component::Source, "no Linux 7.3 source (BPF_SELFTEST_KERNEL_SRC, or scripts/setup-vm.sh --source)");
        return;
    };
    if std::process::Command::new("gcc").arg("--version").output().is_err() {
        require::skip(Component::Source, "gcc is not installed (the importer preprocesses the C sources)");
        return;
    }
    let mut wrong = Vec::new();
    let mut listed_wrong = Vec::new();
    let mut unsupported: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let (mut agree, mut total) = (0, 0);
    let mut paths = RunPaths::default();
    for arch in [Arch::X86_64, Arch::Arm64] {
        let listed = listed_test_run_divergences(arch);
        let suites: Vec<_> =
            import::import_verifier_suites(&tree, arch, &|_| true).into_iter().filter_map(|(_, r)| r.ok()).map(|f| import::suite::to_suite(&f)).collect();
        let opts = RunOptions { arch, backend: "plan".into(), verbosity: 0, filters: Vec::new() };
        for st in runner::plan_suites(&suites, &opts, &Plan73) {
            let Plan::Load(job) = &st.plan else { continue };
            let Some(input) = &job.request.test_run else { continue };
            let want = job.spec.subspec(job.unpriv).retval;
            if want == bpf_selftest::spec::POINTER_VALUE {
                continue;
            }
            total += 1;
            let is_listed = listed.contains(&st.name);
            let differs = match model_test_run(&job.request, input, &mut paths) {
                Ok(o) if o.retval as i32 == want => {
                    agree += 1;
                    None
                }
                Ok(o) => Some(format!("{arch} {}: __retval({want}), interpreter {}", st.name, o.retval as i32)),
                Err(ExecError::Unsupported(what)) => {
                    unsupported.entry(what).or_default().push(format!("{arch} {}", st.name));
                    None
                }
                Err(e) => Some(format!("{arch} {}: __retval({want}), interpreter error: {e}", st.name)),
            };
            match differs {
                Some(d) if is_listed => listed_wrong.push(d),
                Some(d) => wrong.push(d),
                None if is_listed => wrong.push(format!("{arch} {}: agrees, but KERNEL_SELFTESTS_MODEL lists it as a test-run divergence", st.name)),
                None => {}
            }
        }
    }
    let unsup: usize = unsupported.values().map(Vec::len).sum();
    eprintln!(
        "{total} annotated test runs: {agree} agree, {} wrong, {unsup} not modelled yet; {} ran the model's xlated program, {} the program as loaded ({} of them because the model does not accept or decide it)",
        wrong.len(),
        paths.xlated,
        paths.as_loaded.len(),
        paths.not_accepted
    );
    let mut why: BTreeMap<String, usize> = BTreeMap::new();
    for w in &paths.as_loaded {
        *why.entry(w.clone()).or_default() += 1;
    }
    for (w, n) in &why {
        eprintln!("  as loaded: {w}: {n}");
    }
    // where the model accepts the load, the xlated program runs
    let accepted_but_as_loaded = paths.as_loaded.len() - paths.not_accepted;
    assert!(accepted_but_as_loaded == 0, "{accepted_but_as_loaded} accepted programs ran as loaded");
    for (what, progs) in &unsupported {
        eprintln!("  not modelled: {what}: {} ({})", progs.len(), progs.iter().take(3).cloned().collect::<Vec<_>>().join(", "));
    }
    for d in &listed_wrong {
        eprintln!("  listed in KERNEL_SELFTESTS_MODEL: {d}");
    }
    assert!(wrong.is_empty(), "{} retvals differ from the kernel's annotations:\n{}", wrong.len(), wrong.join("\n"));
}

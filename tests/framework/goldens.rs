//! The suites' annotations against recorded truth: every program of progs/
//! is replayed from its goldens (what 7.3 did with it, `bpf-selftest
//! record`) through the runner, on x86_64 and arm64. An expectation the
//! kernel does not meet, or a program without goldens, fails here.

use std::path::PathBuf;

use bpf_selftest::backend::Backend;
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

/// A golden answers only for the load it was recorded from: once a test's
/// program is edited (an immediate changed, as `w0 += 42` becoming `w0 +=
/// 43`), replaying its golden fails and says to record the suite again.
#[test]
fn a_golden_of_an_edited_program_is_stale() {
    let be = ReplayBackend::new(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expected"));
    let opts = RunOptions { arch: Arch::X86_64, backend: "replay".into(), verbosity: 0, filters: Vec::new() };
    let job = runner::plan(&opts, &be)
        .into_iter()
        .filter(|st| st.suite == "readme")
        .find_map(|st| match st.plan {
            Plan::Load(job) => Some(job),
            _ => None,
        })
        .expect("a planned program of progs/readme.rs");
    let name = job.request.name.clone();
    assert!(be.load(&job.request).is_ok(), "{name}: its golden was recorded from it");

    let mut edited = job.request.clone();
    let insn = edited.prog.insns.iter_mut().find(|i| i.imm != 0 && !i.is_ld_imm64()).expect("an insn with an immediate");
    insn.imm += 1;
    let err = be.load(&edited).expect_err("the golden of another program").0;
    let want = format!("golden of {name} is stale: re-run bpf-selftest record readme");
    assert!(err.starts_with(&want), "{err}");
}

/// Every `progs/<suite>.rs` is a suite with programs that run, with nothing
/// to list anywhere (the build script finds the files).
#[test]
fn every_file_of_progs_is_a_suite() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("progs");
    let suites = bpf_selftest::registry::suites();
    let mut files = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let (Some(stem), Some("rs")) = (path.file_stem().and_then(|s| s.to_str()), path.extension().and_then(|s| s.to_str())) else {
            continue;
        };
        if stem == "lib" || stem == "main" {
            continue;
        }
        files += 1;
        let suite = suites.iter().find(|s| s.name == stem);
        assert!(suite.is_some_and(|s| !s.programs.is_empty()), "{} has no programs in the suites", path.display());
    }
    assert_eq!(files, suites.len(), "a suite not from a file of progs/");
}

/// A backend answering from the goldens, each answer changed by `edit`.
struct Edited<F: Fn(&mut bpf_selftest::backend::LoadOutcome) + Send + Sync>(ReplayBackend, F);

impl<F: Fn(&mut bpf_selftest::backend::LoadOutcome) + Send + Sync> Backend for Edited<F> {
    fn name(&self) -> &'static str {
        "replay"
    }
    fn probe(&self, arch: Arch) -> Result<(), bpf_selftest::backend::Unavailable> {
        self.0.probe(arch)
    }
    fn kernel_release(&self) -> String {
        self.0.kernel_release()
    }
    fn load(&self, req: &bpf_selftest::backend::LoadRequest) -> Result<bpf_selftest::backend::LoadOutcome, bpf_selftest::backend::Unavailable> {
        let mut out = self.0.load(req)?;
        (self.1)(&mut out);
        Ok(out)
    }
}

/// The 1-based line of `progs/readme.rs` that starts with `start` (after
/// its indentation).
fn readme_line(start: &str) -> usize {
    let text = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("progs/readme.rs")).unwrap();
    text.lines().position(|l| l.trim_start().starts_with(start)).unwrap_or_else(|| panic!("no {start} in progs/readme.rs")) + 1
}

/// The report of subtest `name` on `backend`.
fn report_of(backend: &dyn Backend, name: &str) -> String {
    let opts = RunOptions { arch: Arch::X86_64, backend: "replay".into(), verbosity: 0, filters: Vec::new() };
    let st = runner::plan(&opts, backend).into_iter().find(|st| st.name == name).unwrap_or_else(|| panic!("{name} planned"));
    match runner::run_subtest(&st, backend, &opts) {
        (Verdict::Fail(report), _) => report,
        (v, _) => panic!("{name}: not a failure: {v:?}"),
    }
}

/// A failing attribute's report names the file and line of that attribute
/// and of the test, and a `#[msg]` not found names the log line closest to
/// it. The kernel's answers are edited to fail the checks: the log line
/// the second `#[msg]` of `readme/lookup_without_null_check` looks for,
/// and the retval `#[retval(42)]` of `readme/lookup_and_double` wants.
#[test]
fn a_failing_attribute_is_named_by_file_and_line() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expected");
    let be = Edited(ReplayBackend::new(root.clone()), |o| {
        o.log = o.log.replace("R0 invalid mem access 'map_value_or_null'", "R0 invalid mem access 'map_value_or_nul'");
        o.retval = o.retval.map(|r| r + 1);
    });
    let report = report_of(&be, "readme/lookup_without_null_check");
    let msg_line = readme_line("#[msg(\"R0 invalid mem access");
    let want = format!("progs/readme.rs:{msg_line}: #[msg(\"R0 invalid mem access 'map_value_or_null'\")] failed");
    assert!(report.contains(&want), "{want}\nnot in:\n{report}");
    // the test: where its first attribute, `#[sec]`, stands above its `fn`
    let text = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("progs/readme.rs")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let fn_line = readme_line("fn lookup_without_null_check");
    let sec_line = (1..fn_line).rev().find(|&n| lines[n - 1].starts_with("#[sec(")).unwrap();
    let want = format!("progs/readme.rs:{sec_line}: the test lookup_without_null_check");
    assert!(report.contains(&want), "{want}\nnot in:\n{report}");
    let closest = report.lines().find(|l| l.starts_with("closest VERIFIER LOG line")).unwrap_or_else(|| panic!("no closest line in:\n{report}"));
    assert!(closest.ends_with("R0 invalid mem access 'map_value_or_nul'"), "{closest}");

    let report = report_of(&be, "readme/lookup_and_double");
    let want = format!("progs/readme.rs:{}: #[retval(42)] failed", readme_line("#[retval(42)]"));
    assert!(report.contains(&want), "{want}\nnot in:\n{report}");
}

//! The kernel's own `verifier_*.c` selftests (Linux 7.3), imported at test
//! time from the 7.3 source (never committed: GPL) and run through the
//! backend `BPF_SELFTEST_BACKEND` names (default `model`) for the arch
//! `BPF_SELFTEST_ARCH` names (default: the host). With
//! `BPF_SELFTEST_IMPORT_ALL=1` also the other test_loader suites of
//! `progs/` (`bpf_selftest::import::discover`; `conform --kernel-selftests`
//! always runs them): they add ~110 clang compiles to the import and many
//! programs that need what the runner lacks (bpf_testmod, attach targets,
//! BPF streams), so `cargo test` leaves them out by default.
//!
//! Trials: `verifier_x/prog` (and `... @unpriv`) per subtest as test_loader
//! would run it; programs the importer cannot express are ignored trials
//! whose kind names the construct (`blocked: written in C`, ...); a file
//! that does not import at all is a failing trial. `importer/counts` checks
//! the importer over the whole tree: every file imports, and nothing is
//! blocked by the importer's own failures (asm it cannot read, values it
//! cannot compute, symbols it cannot place).
//!
//! Subtests listed in `expected/KERNEL_SELFTESTS_KNOWN` (7.3 itself fails
//! them as the project runs it) are skipped with the reason listed, and
//! with the model backend those of `expected/KERNEL_SELFTESTS_MODEL` (the
//! model differs from 7.3 there). Without
//! the sources (or gcc) everything is one ignored trial saying so, and
//! without clang-19 the programs written in C are blocked trials saying so;
//! a failing trial instead when `BPF_SELFTEST_REQUIRE` requires the source
//! or clang (as the runner fails the subtests of a backend that lacks a
//! required component).

use std::process::ExitCode;
use std::sync::Arc;

use bpf_selftest::backend::{self, Backend};
use bpf_selftest::import::{self, ImportedFile};
use bpf_selftest::require::{self, Component};
use bpf_selftest::runner::{self, Plan, RunOptions};
use bpf_selftest::target::Arch;
use libtest_mimic::{Arguments, Failed, Trial};

/// Constructs that mean the importer failed, not that the program uses
/// something the runner lacks.
const IMPORTER_FAILURES: &[&str] = &[
    "asm error",
    "unknown symbol",
    "__imm_const not computable",
    "__imm_insn not computable",
    "map definition not computable",
    "global not computable",
    "asm operand constraint",
    "several asm statements",
    "naked function without asm",
];

/// `expected/KERNEL_SELFTESTS_KNOWN`: the subtests 7.3 itself fails as the
/// project runs it, for `arch`: (subtest name, reason). With the model
/// backend also `expected/KERNEL_SELFTESTS_MODEL`: where the model differs
/// from 7.3 (same format).
fn known_failures(arch: Arch, backend: &str) -> Vec<(String, String)> {
    let mut out = listed("KERNEL_SELFTESTS_KNOWN", arch);
    if backend == "model" {
        out.extend(listed("KERNEL_SELFTESTS_MODEL", arch));
    }
    out
}

/// The entries of `expected/<file>` for `arch` (none when it cannot be read).
fn listed(file: &str, arch: Arch) -> Vec<(String, String)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("expected").join(file);
    import::known_failures(&std::fs::read_to_string(path).unwrap_or_default(), arch)
}

/// The one trial standing for all when `c` is missing: ignored saying why,
/// or failing when `c` is required.
fn missing_all(c: Component, why: &str) -> Vec<Trial> {
    match require::missing(c, why) {
        Ok(_) => vec![Trial::test("imported", || Ok(())).with_kind(format!("skip: {why}")).with_ignored_flag(true)],
        Err(failure) => vec![Trial::test("imported", move || Err(Failed::from(failure)))],
    }
}

fn counts_trial(files: Arc<Vec<(String, Result<ImportedFile, String>)>>) -> Trial {
    Trial::test("importer/counts", move || {
        let mut problems = Vec::new();
        let (mut progs, mut runnable) = (0, 0);
        for (name, res) in files.iter() {
            match res {
                Err(e) => problems.push(format!("{name}: {e}")),
                Ok(f) if !f.suite.starts_with("verifier_") => {
                    for p in &f.programs {
                        for b in p.blocked.iter().filter(|b| IMPORTER_FAILURES.iter().any(|c| b.construct.ends_with(c))) {
                            problems.push(format!("{}/{}: {b}", f.suite, p.name));
                        }
                    }
                }
                Ok(f) => {
                    progs += f.programs.len();
                    runnable += f.runnable();
                    for p in &f.programs {
                        for b in p.blocked.iter().filter(|b| IMPORTER_FAILURES.iter().any(|c| b.construct.ends_with(c))) {
                            problems.push(format!("{}/{}: {b}", f.suite, p.name));
                        }
                    }
                }
            }
        }
        let verifier_files = files.iter().filter(|(n, _)| n.starts_with("verifier_")).count();
        if verifier_files < 128 && std::env::var("BPF_SELFTEST_IMPORT_FILTER").is_err() {
            problems.push(format!("{verifier_files} verifier_*.c files, 7.3 has 128"));
        }
        // 7.3's verifier_*.c: ~2050 programs, ~1480 of them runnable here
        if verifier_files >= 128 && (progs < 2000 || runnable < 1450) {
            problems.push(format!("{progs} programs, {runnable} runnable: fewer than 7.3 has"));
        }
        if problems.is_empty() { Ok(()) } else { Err(Failed::from(problems.join("\n"))) }
    })
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let opts = match RunOptions::from_env() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("imported: {e}");
            return ExitCode::from(2);
        }
    };
    let backend: Arc<dyn Backend> = match backend::by_name(&opts.backend) {
        Ok(b) => b.into(),
        Err(e) => {
            eprintln!("imported: BPF_SELFTEST_BACKEND: {e}");
            return ExitCode::from(2);
        }
    };
    let trials = match import::cpp::source_tree() {
        None => missing_all(Component::Source, "no Linux 7.3 source (set BPF_SELFTEST_KERNEL_SRC, or run scripts/setup-vm.sh --source)"),
        Some(_) if std::process::Command::new("gcc").arg("--version").output().is_err() => {
            missing_all(Component::Source, "gcc is not installed (its cpp and a host compiler import the C sources)")
        }
        Some(tree) => {
            // BPF_SELFTEST_IMPORT_FILTER=verifier_and,verifier_bswap: import only these
            let only: Vec<String> = std::env::var("BPF_SELFTEST_IMPORT_FILTER")
                .map(|v| v.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect())
                .unwrap_or_default();
            let filter = |name: &str| only.is_empty() || only.iter().any(|o| name.contains(o.as_str()));
            let all = std::env::var("BPF_SELFTEST_IMPORT_ALL").is_ok_and(|v| v == "1");
            let imported =
                if all { import::import_kernel_suites(&tree, opts.arch, &filter) } else { import::import_verifier_suites(&tree, opts.arch, &filter) };
            let files: Vec<(String, Result<ImportedFile, String>)> =
                imported.into_iter().map(|(p, r)| (p.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned()), r)).collect();
            let files = Arc::new(files);
            // without clang the programs written in C stay blocked: a
            // missing component's skip (`Err`: a failure, it is required)
            let no_clang = import::clang::clang_program()
                .is_none()
                .then(|| require::missing(Component::Clang, "clang-19 is not installed (BPF_SELFTEST_CLANG names another)"));
            let mut trials = vec![counts_trial(files.clone())];
            let mut suites = Vec::new();
            for (name, res) in files.iter() {
                match res {
                    Err(e) => {
                        let e = e.clone();
                        trials.push(Trial::test(format!("{name} [import]"), move || Err(Failed::from(e))));
                    }
                    Ok(f) => {
                        for p in f.programs.iter().filter(|p| !p.runnable()) {
                            let what = p.blocked.first().map_or("blocked".to_string(), |b| b.construct.replace(['[', ']'], ""));
                            let name = format!("{}/{}", f.suite, p.name);
                            let only_in_c = p.blocked.iter().all(|b| b.construct == "written in C");
                            trials.push(match &no_clang {
                                Some(Err(failure)) if only_in_c => {
                                    let failure = failure.clone();
                                    Trial::test(name, move || Err(Failed::from(failure)))
                                }
                                _ => Trial::test(name, || Ok(())).with_kind(format!("blocked: {what}")).with_ignored_flag(true),
                            });
                        }
                        suites.push(import::suite::to_suite(f));
                    }
                }
            }
            let mut subtests = runner::plan_suites(&suites, &opts, &*backend);
            // a backend that lacks a required component fails all it would
            // run (the runner's plan), the known failures too
            let lacks_required = backend.probe(opts.arch).is_err() && backend.requires(opts.arch).is_some_and(require::is_required);
            let known = if lacks_required { Vec::new() } else { known_failures(opts.arch, &opts.backend) };
            for st in &mut subtests {
                if let Some(why) = known.iter().find(|(n, _)| *n == st.name).map(|(_, w)| w) {
                    st.plan = Plan::Skip(format!("known: {why}"));
                }
            }
            trials.extend(runner::subtest_trials(subtests, &opts, backend));
            trials
        }
    };
    libtest_mimic::run(&args, trials).exit_code()
}

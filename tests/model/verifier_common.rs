//! Shared driver of the verifier tests against recorded 7.3 logs
//! (`verifier_do_check`, `verifier_calls`): goldens recorded from a real
//! Linux 7.3 verifier at log levels 1 and 2 (`bpf-selftest record --set
//! do-check|calls`, format and load in `bpf_selftest::recorded::verifier_logs`),
//! each program loaded again through the whole model of `bpf_check` as it
//! was recorded, and compared: verdict, errno,
//! `verified_insns` and the log. A rejected program's log is compared to
//! its end; an accepted one up to the closing statistics (which come
//! after the fixups: checked apart when the model decides them too). Kernel pointers are masked as in the goldens of
//! `progs/` (map addresses printed by `ld_imm64`).
//!
//! Two levels of agreement are counted: the whole log ("strict"), and the
//! log without the "Verification failed:" diagnostics blocks, which the
//! model does not write for every error yet.

use std::collections::BTreeMap;
use std::path::Path;

use bpf_selftest::backend::model::ModelBackend;
use bpf_selftest::golden::mask_kernel_pointers;
use bpf_selftest::recorded::verifier_logs;
use bpf_selftest::verifier::errno::errno_name;
use bpf_selftest::{load::bpf_check, verifier::Verdict};

pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");

pub use bpf_selftest::recorded::verifier_logs::{Case, request};

/// Every program of `dir` (one `<area>.txt` per area).
pub fn load(dir: &str) -> Vec<Case> {
    let files = verifier_logs::read_dir(&Path::new(ROOT).join(dir)).expect("goldens");
    files.into_iter().flat_map(|f| f.cases).collect()
}

/// The model's result line, log and `verified_insns` for `case` at
/// `level`.
pub fn run(case: &Case, level: u32) -> Result<(String, String), String> {
    let req = request(case, level)?;
    let input = ModelBackend::verifier_input(&req).map_err(|u| u.0)?;
    match bpf_check(&input) {
        Verdict::Decided(d) if !d.accepted => Ok((format!("rejected errno={}", errno_name(d.errno)), d.log)),
        Verdict::Decided(d) => {
            // decided through the fixups: the closing statistics too
            let stats = |log: &str| log.lines().filter(|l| l.starts_with("processed ")).map(str::to_string).collect::<Vec<_>>();
            let kernel = if level == 1 { &case.log1 } else { &case.log2 };
            if stats(&d.log) != stats(kernel) {
                return Err(format!("statistics: kernel {:?}, model {:?}", stats(kernel), stats(&d.log)));
            }
            let log = d.log.lines().filter(|l| !l.starts_with("processed ")).map(|l| format!("{l}\n")).collect();
            Ok((format!("accepted verified_insns={}", d.verified_insns), log))
        }
        Verdict::NotModelled { phase: "fixups", log_so_far, verified_insns, .. } => Ok((format!("accepted verified_insns={verified_insns}"), log_so_far)),
        Verdict::NotModelled { phase, what, .. } => Err(format!("not modelled: {phase}: {what}")),
    }
}

/// The kernel's log as the model can reproduce it: an accepted program's
/// closing statistics come after the fixups.
pub fn expected_log(case: &Case, level: u32) -> String {
    let log = if level == 1 { &case.log1 } else { &case.log2 };
    let mut log = mask_kernel_pointers(log);
    if case.result.starts_with("accepted") {
        log = log.lines().filter(|l| !l.starts_with("processed ")).map(|l| format!("{l}\n")).collect();
    }
    log
}

/// `log` without its "Verification failed:" blocks (each ends with its
/// suggestion's paragraph, or at the statistics).
pub fn without_diagnostics(log: &str) -> String {
    let mut out = String::new();
    let (mut in_diag, mut suggestion) = (false, false);
    for l in log.split_inclusive('\n') {
        let t = l.trim_end_matches('\n');
        if t.starts_with("Verification failed:") {
            (in_diag, suggestion) = (true, false);
            // the blank line before it
            if out.ends_with("\n\n") {
                out.pop();
            }
            continue;
        }
        if in_diag {
            if t.starts_with("Suggestion:") {
                suggestion = true;
                continue;
            }
            if suggestion && t.is_empty() {
                in_diag = false;
                continue;
            }
            if !t.starts_with("processed ") {
                continue;
            }
            in_diag = false;
            if out.ends_with("\n\n") {
                out.pop();
            }
        }
        out.push_str(l);
    }
    out
}

/// How a program compared.
pub enum Match {
    /// Everything, diagnostics included.
    Strict,
    /// Everything but the diagnostics blocks (where they first differ).
    MainPass(String),
}

fn first_diff(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let i = w.iter().zip(&g).position(|(a, b)| a != b).unwrap_or(w.len().min(g.len()));
    format!("line {}:\n  want: {}\n  got:  {}", i + 1, w.get(i).unwrap_or(&"<end>"), g.get(i).unwrap_or(&"<end>"))
}

/// Runs `case` at both log levels against its goldens.
pub fn check(case: &Case) -> Result<Match, String> {
    let mut errs = Vec::new();
    let mut strict = None;
    for level in [1u32, 2] {
        let (result, log) = run(case, level)?;
        if level == 2 && result != case.result {
            errs.push(format!("result: got {result}, want {}", case.result));
        }
        let want = expected_log(case, level);
        let got = mask_kernel_pointers(&log);
        if want.trim_end() == got.trim_end() {
            continue;
        }
        strict.get_or_insert_with(|| format!("level {level} log differs at {}", first_diff(&want, &got)));
        let (w, g) = (without_diagnostics(&want), without_diagnostics(&got));
        if w.trim_end() != g.trim_end() {
            errs.push(format!("level {level} log differs at {}", first_diff(&w, &g)));
        }
    }
    if !errs.is_empty() {
        return Err(errs.join("\n"));
    }
    Ok(match strict {
        None => Match::Strict,
        Some(d) => Match::MainPass(d),
    })
}

/// Pass counts of a suite run.
#[derive(Default)]
pub struct Counts {
    pub total: usize,
    /// Agree but for diagnostics blocks (strict ones included).
    pub pass: usize,
    pub strict: usize,
}

/// Checks every case of `dir`, prints the counts per area (strict, main
/// pass, total). `$VERBOSE_VAR` set prints each failure; `$FILTER_VAR`
/// keeps only names (or areas) containing it.
pub fn run_suite(dir: &str, verbose_var: &str, filter_var: &str) -> Counts {
    let mut cases = load(dir);
    assert!(!cases.is_empty());
    if let Ok(f) = std::env::var(filter_var) {
        cases.retain(|c| c.name.contains(&f) || c.area == f);
    }
    let verbose = std::env::var(verbose_var).is_ok();
    let mut per_area: BTreeMap<String, Counts> = BTreeMap::new();
    for c in &cases {
        let r = std::panic::catch_unwind(|| check(c)).unwrap_or_else(|_| Err("panic".into()));
        let e = per_area.entry(c.area.clone()).or_default();
        e.total += 1;
        match r {
            Ok(m) => {
                e.pass += 1;
                match m {
                    Match::Strict => e.strict += 1,
                    Match::MainPass(d) if verbose => eprintln!("DIAG {}/{}: {d}", c.area, c.name),
                    Match::MainPass(_) => {}
                }
            }
            Err(m) if verbose => eprintln!("FAIL {}/{}: {m}", c.area, c.name),
            Err(_) => {}
        }
    }
    let mut all = Counts::default();
    for (a, c) in &per_area {
        eprintln!("{a}: {}/{} ({} with diagnostics)", c.pass, c.total, c.strict);
        all.total += c.total;
        all.pass += c.pass;
        all.strict += c.strict;
    }
    eprintln!("total: {}/{} ({} with diagnostics)", all.pass, all.total, all.strict);
    all
}

/// Prints the model's log of the program named `name` at `level`
/// (debugging aid).
pub fn dump(dir: &str, name: &str, level: u32) {
    for c in load(dir).iter().filter(|c| c.name == name) {
        match run(c, level) {
            Ok((result, log)) => eprintln!("{log}\n=> {result}"),
            Err(e) => eprintln!("{e}"),
        }
    }
}

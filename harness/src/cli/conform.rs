//! `bpf-selftest conform --kernel-selftests`: the kernel's own test_loader
//! selftests (every `verifier_*.c`, and the other files `prog_tests/` runs
//! through test_loader: [`import::discover`]), imported from the 7.3
//! source at run time, run through a backend for x86_64 and arm64, with a
//! pass-rate table per suite: programs (of them written in C; blocked by a
//! construct), subtests passed, failed and skipped, and the reasons, for
//! the verifier_*.c files and the others apart. Programs written
//! in C run from clang's object of the file ([`crate::object`]); those the
//! object loader cannot load yet are blocked, counted by reason.
//!
//! With the `model` backend (the default) this measures the model's
//! fidelity; with `vm` (7.3 under QEMU) it measures the importer and the
//! object loader, since the real kernel passes nearly all of its own tests.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use crate::backend::{self, Backend};
use crate::import::discover::SuiteGroup;
use crate::import::{self, ImportedFile, cpp::KernelTree};
use crate::require::{self, Component};
use crate::runner::{self, Plan, RunOptions, Subtest, Verdict};
use crate::target::Arch;

/// `conform --kernel-selftests` and its options (the rest of `conform`
/// compares the model with the goldens).
#[derive(Args)]
pub struct KernelSelftestArgs {
    /// Import the kernel's test_loader selftests (Linux 7.3: verifier_*.c
    /// and the other suites prog_tests/ runs) and run them through
    /// --backend instead: pass rates per suite.
    #[arg(long)]
    pub kernel_selftests: bool,
    /// With --kernel-selftests: only suites whose name contains one of
    /// these (`verifier_and`); with --objects: only objects whose name
    /// does (`strobemeta`); repeatable.
    #[arg(long = "suite", value_name = "NAME")]
    pub filters: Vec<String>,
    /// With --kernel-selftests: model, kernel or vm (default:
    /// BPF_SELFTEST_BACKEND, else model).
    #[arg(long)]
    pub backend: Option<String>,
    /// With --kernel-selftests or --objects: the kernel tree (default:
    /// BPF_SELFTEST_KERNEL_SRC or the caches).
    #[arg(long, value_name = "DIR")]
    pub tree: Option<PathBuf>,
    /// With --kernel-selftests: -v prints every failure's report, -vv also
    /// every subtest's verdict.
    #[arg(short, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

/// One suite's numbers for one arch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SuiteStats {
    pub programs: usize,
    /// Programs written in C (runnable or not).
    pub in_c: usize,
    /// Programs blocked by a construct (naked asm or C).
    pub blocked: usize,
    /// Of those, programs written in C.
    pub blocked_c: usize,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    /// Of the subtests, those of programs written in C: passed, failed,
    /// skipped.
    pub c_subtests: [usize; 3],
}

impl SuiteStats {
    fn add(&mut self, o: &SuiteStats) {
        self.programs += o.programs;
        self.in_c += o.in_c;
        self.blocked += o.blocked;
        self.blocked_c += o.blocked_c;
        self.passed += o.passed;
        self.failed += o.failed;
        self.skipped += o.skipped;
        for (k, n) in o.c_subtests.iter().enumerate() {
            self.c_subtests[k] += n;
        }
    }
}

/// The outcome of one arch's run.
#[derive(Debug, Default)]
pub struct ArchReport {
    pub arch: Option<Arch>,
    pub suites: Vec<(String, SuiteStats)>,
    /// Files that did not import at all: (file, error).
    pub import_errors: Vec<(String, String)>,
    /// (group, reason) -> count.
    pub skips: BTreeMap<(SuiteGroup, String), usize>,
    /// (group, construct) -> naked-asm programs (each program counted
    /// under its first reason).
    pub blocked: BTreeMap<(SuiteGroup, String), usize>,
    /// The same for programs written in C.
    pub blocked_c: BTreeMap<(SuiteGroup, String), usize>,
    /// (subtest, report).
    pub failures: Vec<(String, String)>,
    /// (subtest, verdict) of every subtest, in order.
    pub verdicts: Vec<(String, String)>,
}

impl ArchReport {
    pub fn total(&self) -> SuiteStats {
        self.total_of(|_| true)
    }

    /// The sum over the suites of `group`.
    pub fn group_total(&self, group: SuiteGroup) -> SuiteStats {
        self.total_of(|name| SuiteGroup::of(name) == group)
    }

    fn total_of(&self, keep: impl Fn(&str) -> bool) -> SuiteStats {
        let mut t = SuiteStats::default();
        for (_, s) in self.suites.iter().filter(|(n, _)| keep(n)) {
            t.add(s);
        }
        t
    }

    /// The groups with suites in this report, in order.
    pub fn groups(&self) -> Vec<SuiteGroup> {
        let mut g: Vec<SuiteGroup> = self.suites.iter().map(|(n, _)| SuiteGroup::of(n)).collect();
        g.sort();
        g.dedup();
        g
    }
}

fn pct(n: usize, d: usize) -> String {
    if d == 0 { "-".to_string() } else { format!("{:.1}%", 100.0 * n as f64 / d as f64) }
}

/// Imports the suites of `tree` for `arch` and runs them on `backend`,
/// each suite's loads as one batch (one guest boot serves them all).
pub fn run_arch(tree: &KernelTree, arch: Arch, backend: &dyn Backend, backend_name: &str, filters: &[String], progress: &mut dyn FnMut(&str)) -> ArchReport {
    let mut rep = ArchReport { arch: Some(arch), ..ArchReport::default() };
    let filter = |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()));
    let opts = RunOptions { arch, backend: backend_name.to_string(), verbosity: 0, filters: Vec::new() };
    for (path, res) in import::import_kernel_suites(tree, arch, &filter) {
        let file: ImportedFile = match res {
            Ok(f) => f,
            Err(e) => {
                rep.import_errors.push((path.display().to_string(), e));
                continue;
            }
        };
        let group = SuiteGroup::of(&file.suite);
        let mut st = SuiteStats { programs: file.programs.len(), ..SuiteStats::default() };
        for p in &file.programs {
            let in_c = p.in_c();
            st.in_c += usize::from(in_c);
            if p.runnable() {
                continue;
            }
            st.blocked += 1;
            st.blocked_c += usize::from(in_c);
            let why = p.blocked.first().map_or_else(|| "no code".to_string(), |b| b.construct.clone());
            let shown = p.blocked.first().map_or_else(|| "no code".to_string(), |b| b.to_string());
            rep.verdicts.push((format!("{}/{}", file.suite, p.name), format!("BLOCKED ({shown})")));
            *if in_c { &mut rep.blocked_c } else { &mut rep.blocked }.entry((group, why)).or_default() += 1;
        }
        let c_progs: std::collections::HashSet<String> = file.programs.iter().filter(|p| p.in_c()).map(|p| format!("{}/{}", file.suite, p.name)).collect();
        let suite = import::suite::to_suite(&file);
        let subtests: Vec<Subtest> = runner::plan_suites(std::slice::from_ref(&suite), &opts, backend);
        let loads: Vec<usize> = (0..subtests.len()).filter(|&k| matches!(subtests[k].plan, Plan::Load(_))).collect();
        let requests: Vec<_> = loads
            .iter()
            .filter_map(|&k| match &subtests[k].plan {
                Plan::Load(job) => Some(job.request.clone()),
                _ => None,
            })
            .collect();
        progress(&format!("{arch}: {} ({} subtests, {} loads)", file.suite, subtests.len(), requests.len()));
        let mut outcomes = if requests.is_empty() { Vec::new() } else { backend.load_batch(&requests) }.into_iter();
        for st_ in &subtests {
            let verdict = match &st_.plan {
                Plan::Skip(why) => Verdict::Skip(why.clone()),
                Plan::Fail(why) => Verdict::Fail(format!("{why}\n")),
                Plan::Load(job) => match outcomes.next() {
                    Some(Ok(out)) => runner::check_outcome(&job.spec, job.unpriv, arch, &out, false).0,
                    Some(Err(u)) => runner::unavailable_verdict(backend, arch, u),
                    None => Verdict::Skip("the backend returned no outcome".into()),
                },
            };
            let prog = st_.name.strip_suffix(" @unpriv").unwrap_or(&st_.name);
            if c_progs.contains(prog) {
                st.c_subtests[match verdict {
                    Verdict::Ok => 0,
                    Verdict::Fail(_) => 1,
                    Verdict::Skip(_) => 2,
                }] += 1;
            }
            let shown = match &verdict {
                Verdict::Ok => {
                    st.passed += 1;
                    "OK".to_string()
                }
                Verdict::Skip(why) => {
                    st.skipped += 1;
                    *rep.skips.entry((group, why.clone())).or_default() += 1;
                    format!("SKIP ({why})")
                }
                Verdict::Fail(report) => {
                    st.failed += 1;
                    rep.failures.push((st_.name.clone(), report.clone()));
                    "FAIL".to_string()
                }
            };
            rep.verdicts.push((st_.name.clone(), shown));
        }
        rep.suites.push((file.suite.clone(), st));
    }
    rep
}

/// The summary lines of `t`, each starting with `head` (the arch, and the
/// group when there is one).
fn summary(s: &mut String, head: &str, t: &SuiteStats) {
    let naked = t.programs - t.in_c;
    let blocked_naked = t.blocked - t.blocked_c;
    let _ = writeln!(
        s,
        "{head}: {} programs ({naked} naked asm, {} in C): {} runnable ({} naked asm, {} in C), {} blocked ({blocked_naked} naked asm, {} in C); subtests: {} passed, {} failed, {} skipped; pass rate {} of the subtests that ran",
        t.programs,
        t.in_c,
        t.programs - t.blocked,
        naked - blocked_naked,
        t.in_c - t.blocked_c,
        t.blocked,
        t.blocked_c,
        t.passed,
        t.failed,
        t.skipped,
        pct(t.passed, t.passed + t.failed)
    );
    let [cp, cf, cs] = t.c_subtests;
    let _ = writeln!(s, "{head}: subtests of the programs in C: {cp} passed, {cf} failed, {cs} skipped; pass rate {} of those that ran", pct(cp, cp + cf));
}

/// A tally's entries for `group`, largest first.
fn tally_lines(s: &mut String, title: &str, tally: &BTreeMap<(SuiteGroup, String), usize>, group: SuiteGroup) {
    let mut v: Vec<(&String, &usize)> = tally.iter().filter(|((g, _), _)| *g == group).map(|((_, c), n)| (c, n)).collect();
    if v.is_empty() {
        return;
    }
    let _ = writeln!(s, "{title} ({}):", group.label());
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (c, n) in v {
        let _ = writeln!(s, "  {n:>5}  {c}");
    }
}

/// The table and summaries of one arch's report.
pub fn render(rep: &ArchReport, backend: &str, release: &str, verbose: u8) -> String {
    let mut s = String::new();
    let arch = rep.arch.map_or("?".to_string(), |a| a.to_string());
    let groups = rep.groups();
    let files = |g: SuiteGroup| rep.suites.iter().filter(|(n, _)| SuiteGroup::of(n) == g).count();
    let what: Vec<String> = groups.iter().map(|&g| format!("{} {}", files(g), g.label())).collect();
    let _ = writeln!(s, "kernel selftests (test_loader suites of Linux 7.3: {}) on {arch}, backend {backend} ({release})", what.join(", "));
    let _ = writeln!(s, "{:<36} {:>5} {:>4} {:>7} {:>5} {:>5} {:>5} {:>7}", "suite", "progs", "in C", "blocked", "pass", "fail", "skip", "pass %");
    let row = |s: &mut String, name: &str, st: &SuiteStats| {
        let _ = writeln!(
            s,
            "{:<36} {:>5} {:>4} {:>7} {:>5} {:>5} {:>5} {:>7}",
            name,
            st.programs,
            st.in_c,
            st.blocked,
            st.passed,
            st.failed,
            st.skipped,
            pct(st.passed, st.passed + st.failed)
        );
    };
    for (name, st) in &rep.suites {
        row(&mut s, name, st);
    }
    if groups.len() > 1 {
        for &g in &groups {
            row(&mut s, &format!("{} ({} suites)", g.label(), files(g)), &rep.group_total(g));
        }
    }
    row(&mut s, &format!("total ({} suites)", rep.suites.len()), &rep.total());
    if groups.len() > 1 {
        for &g in &groups {
            summary(&mut s, &format!("{arch} {}", g.label()), &rep.group_total(g));
        }
    }
    summary(&mut s, &arch, &rep.total());
    if !rep.import_errors.is_empty() {
        let _ = writeln!(s, "files that did not import:");
        for (f, e) in &rep.import_errors {
            let _ = writeln!(s, "  {f}: {e}");
        }
    }
    for &g in &groups {
        tally_lines(&mut s, "naked-asm programs blocked, by construct", &rep.blocked, g);
        tally_lines(&mut s, "programs in C blocked, by reason", &rep.blocked_c, g);
        tally_lines(&mut s, "skipped subtests, by reason", &rep.skips, g);
    }
    if !rep.failures.is_empty() {
        let _ = writeln!(s, "failed subtests:");
        for (name, report) in &rep.failures {
            if verbose > 0 {
                let _ = writeln!(s, "--- {name}\n{}", report.trim_end());
            } else {
                let first =
                    report.lines().find(|l| l.contains("FAIL") || l.starts_with("EXPECTED") || l.starts_with("WRONG")).or(report.lines().next()).unwrap_or("");
                let _ = writeln!(s, "  {name}: {first}");
            }
        }
    }
    if verbose > 1 {
        for (name, v) in &rep.verdicts {
            let _ = writeln!(s, "{name}: {v}");
        }
    }
    s
}

/// `conform --kernel-selftests`: `arches` comma-separated.
pub fn run(arches: &str, a: &KernelSelftestArgs) -> Result<(), String> {
    let arches: Vec<Arch> = arches.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::parse).collect::<Result<_, _>>()?;
    let backend_name = match &a.backend {
        Some(b) => b.clone(),
        None => std::env::var("BPF_SELFTEST_BACKEND").ok().filter(|v| !v.is_empty()).unwrap_or_else(|| "model".into()),
    };
    let backend: Arc<dyn Backend> = backend::by_name(&backend_name)?.into();
    let tree = match &a.tree {
        Some(t) => KernelTree::new(t),
        None => match import::cpp::source_tree() {
            Some(t) => t,
            None => {
                let line = require::missing(Component::Source, "no Linux 7.3 source (set BPF_SELFTEST_KERNEL_SRC, or run scripts/setup-vm.sh --source)")
                    .map_err(|e| format!("conform --kernel-selftests: {e}"))?;
                println!("conform --kernel-selftests: {line}");
                return Ok(());
            }
        },
    };
    for arch in arches {
        let rep = run_arch(&tree, arch, &*backend, &backend_name, &a.filters, &mut |m| eprintln!("conform: {m}"));
        print!("{}", render(&rep, &backend_name, &backend.kernel_release(), a.verbose));
        println!();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_and_rates() {
        let rep = ArchReport {
            arch: Some(Arch::X86_64),
            suites: vec![
                ("verifier_a".into(), SuiteStats { programs: 4, in_c: 2, blocked: 2, blocked_c: 1, passed: 3, failed: 1, skipped: 0, c_subtests: [1, 1, 0] }),
                ("verifier_b".into(), SuiteStats { programs: 2, in_c: 0, blocked: 0, blocked_c: 0, passed: 0, failed: 0, skipped: 2, c_subtests: [0; 3] }),
            ],
            skips: [((SuiteGroup::Verifier, "backend unavailable".to_string()), 2)].into(),
            blocked: [((SuiteGroup::Verifier, "map needs BTF".to_string()), 1)].into(),
            blocked_c: [((SuiteGroup::Verifier, "BPF object: CO-RE relocation".to_string()), 1)].into(),
            failures: vec![("verifier_a/p".into(), "run_subtest:FAIL: unexpected_load_success\n".into())],
            ..ArchReport::default()
        };
        let t = render(&rep, "model", "7.3", 0);
        assert!(t.contains("verifier_a                               4    2       2     3     1     0   75.0%"), "{t}");
        assert!(t.contains("verifier_b                               2    0       0     0     0     2       -"), "{t}");
        assert!(t.contains("6 programs (4 naked asm, 2 in C): 4 runnable (3 naked asm, 1 in C), 2 blocked (1 naked asm, 1 in C)"), "{t}");
        assert!(t.contains("naked-asm programs blocked, by construct (verifier_*.c):\n      1  map needs BTF\n"), "{t}");
        assert!(t.contains("x86_64: subtests of the programs in C: 1 passed, 1 failed, 0 skipped; pass rate 50.0% of those that ran"), "{t}");
        assert!(t.contains("programs in C blocked, by reason (verifier_*.c):\n      1  BPF object: CO-RE relocation\n"), "{t}");
        assert!(t.contains("pass rate 75.0% of the subtests that ran"), "{t}");
        assert!(t.contains("      2  backend unavailable"), "{t}");
        assert!(t.contains("  verifier_a/p: run_subtest:FAIL: unexpected_load_success"), "{t}");
        assert!(t.contains("(test_loader suites of Linux 7.3: 2 verifier_*.c) on x86_64"), "{t}");
    }

    #[test]
    fn groups_apart() {
        let rep = ArchReport {
            arch: Some(Arch::Arm64),
            suites: vec![
                ("verifier_a".into(), SuiteStats { programs: 2, in_c: 0, blocked: 0, blocked_c: 0, passed: 2, failed: 0, skipped: 0, c_subtests: [0; 3] }),
                ("iters".into(), SuiteStats { programs: 3, in_c: 3, blocked: 1, blocked_c: 1, passed: 1, failed: 1, skipped: 0, c_subtests: [1, 1, 0] }),
            ],
            blocked_c: [((SuiteGroup::Other, "SEC needs an attach target".to_string()), 1)].into(),
            ..ArchReport::default()
        };
        let t = render(&rep, "vm", "7.3", 0);
        assert!(t.contains("(test_loader suites of Linux 7.3: 1 verifier_*.c, 1 other test_loader suites) on arm64"), "{t}");
        assert!(t.contains("arm64 verifier_*.c: 2 programs (2 naked asm, 0 in C): 2 runnable"), "{t}");
        assert!(t.contains("arm64 other test_loader suites: 3 programs (0 naked asm, 3 in C): 2 runnable (0 naked asm, 2 in C), 1 blocked"), "{t}");
        assert!(t.contains("arm64: 5 programs (2 naked asm, 3 in C): 4 runnable"), "{t}");
        assert!(t.contains("programs in C blocked, by reason (other test_loader suites):\n      1  SEC needs an attach target\n"), "{t}");
    }
}

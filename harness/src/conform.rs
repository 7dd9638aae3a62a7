//! Conformance: the model against what a real 7.3 kernel did (the goldens of
//! progs/), section by section: verdict, errno, verified_insns, log, xlated,
//! jited, retval. A difference is a bug unless `expected/KNOWN_DIVERGENCES`
//! lists it with a reason.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::backend::{Backend, LoadOutcome, LoadRequest};
use crate::golden::Golden;
use crate::target::Arch;

/// The compared parts of a load.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Section {
    Verdict,
    Errno,
    VerifiedInsns,
    Log,
    Xlated,
    Jited,
    Retval,
    /// Run counts, recursion misses and globals after a run with
    /// surroundings (attached programs, globals).
    Run,
}

impl Section {
    pub const ALL: [Section; 8] =
        [Section::Verdict, Section::Errno, Section::VerifiedInsns, Section::Log, Section::Xlated, Section::Jited, Section::Retval, Section::Run];

    pub fn name(self) -> &'static str {
        match self {
            Section::Verdict => "verdict",
            Section::Errno => "errno",
            Section::VerifiedInsns => "verified_insns",
            Section::Log => "log",
            Section::Xlated => "xlated",
            Section::Jited => "jited",
            Section::Retval => "retval",
            Section::Run => "run",
        }
    }

    pub fn from_name(s: &str) -> Option<Section> {
        Section::ALL.into_iter().find(|x| x.name() == s)
    }
}

/// One difference: the first differing line or value of a section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub section: Section,
    pub detail: String,
}

/// test_loader's jited text without what encodes where things landed in
/// the kernel (call targets, addresses of maps and functions, pcs after
/// them), as the drift check compares it; `None` for an image with
/// `BPF_F_TEST_RND_HI32` poison, whose random immediates differ per load.
fn comparable_jited(g: &Golden) -> Option<Vec<String>> {
    if g.xlated.iter().any(|l| l.ends_with(": r12 = RND")) {
        return None;
    }
    Some(crate::cli::record::mask_jited_addresses(&g.jited).0)
}

/// Whether the golden's JIT image is compared: it has one, and no random
/// immediates.
fn jited_compared(truth: &Golden) -> bool {
    !truth.jited.is_empty() && comparable_jited(truth).is_some()
}

fn first_diff(a: &[String], b: &[String]) -> Option<String> {
    let n = a.len().max(b.len());
    (0..n).find_map(|i| {
        let (x, y) = (a.get(i), b.get(i));
        (x != y).then(|| format!("line {}: kernel {:?}, model {:?}", i + 1, x.map_or("<none>", |s| s.as_str()), y.map_or("<none>", |s| s.as_str())))
    })
}

/// Compares the model's outcome with the golden. Sections the golden does
/// not have (no JIT text recorded, no test run) are not compared.
pub fn compare(truth: &Golden, model: &LoadOutcome) -> Vec<Mismatch> {
    let m = Golden::from_outcome(Vec::new(), model);
    let mut out = Vec::new();
    let mut push = |section, detail: String| out.push(Mismatch { section, detail });
    if truth.accepted != m.accepted {
        push(Section::Verdict, format!("kernel {}, model {}", verdict(truth.accepted), verdict(m.accepted)));
    }
    if truth.errno != m.errno {
        push(Section::Errno, format!("kernel {}, model {}", truth.errno, m.errno));
    }
    if truth.verified_insns != m.verified_insns {
        push(Section::VerifiedInsns, format!("kernel {}, model {}", truth.verified_insns, m.verified_insns));
    }
    let lines = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
    let log = |s: &str| lines(&crate::cli::record::mask_verification_time(s));
    if let Some(d) = first_diff(&log(&truth.log), &log(&m.log)) {
        push(Section::Log, d);
    }
    if let Some(d) = first_diff(&truth.xlated, &m.xlated) {
        push(Section::Xlated, d);
    }
    if jited_compared(truth)
        && let (Some(t), Some(mj)) = (comparable_jited(truth), comparable_jited(&m))
        && let Some(d) = first_diff(&t, &mj)
    {
        push(Section::Jited, d);
    }
    if truth.retval.is_some() && truth.retval != m.retval {
        push(Section::Retval, format!("kernel {:?}, model {:?}", truth.retval.map(|r| r as i32), m.retval.map(|r| r as i32)));
    }
    if run_compared(truth) && (truth.prog_stats != m.prog_stats || truth.globals != m.globals) {
        push(Section::Run, format!("kernel {:?} {:?}, model {:?} {:?}", truth.prog_stats, truth.globals, m.prog_stats, m.globals));
    }
    out
}

/// Whether the golden recorded a run's surroundings.
fn run_compared(truth: &Golden) -> bool {
    !truth.prog_stats.is_empty() || !truth.globals.is_empty()
}

fn verdict(accepted: bool) -> &'static str {
    if accepted { "accepted" } else { "rejected" }
}

/// `expected/KNOWN_DIVERGENCES`: `<arch|*> <suite>/<prog>[ @unpriv] <section|*> <reason>`.
#[derive(Clone, Debug, Default)]
pub struct KnownDivergences {
    entries: Vec<(String, String, String, String)>,
}

impl KnownDivergences {
    pub fn load(path: &Path) -> Result<KnownDivergences, String> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(KnownDivergences::default()),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        KnownDivergences::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<KnownDivergences, String> {
        let mut entries = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut it = line.splitn(2, ' ');
            let arch = it.next().unwrap_or("").to_string();
            let rest = it.next().unwrap_or("");
            // the program name may contain " @unpriv"
            let (prog, rest) = match rest.split_once(" @unpriv ") {
                Some((p, r)) => (format!("{p} @unpriv"), r),
                None => match rest.split_once(' ') {
                    Some((p, r)) => (p.to_string(), r),
                    None => return Err(format!("line {}: expected <arch> <suite/prog> <section> <reason>", n + 1)),
                },
            };
            let (section, reason) = rest.split_once(' ').unwrap_or((rest, ""));
            if reason.trim().is_empty() {
                return Err(format!("line {}: a known divergence needs a reason", n + 1));
            }
            if section != "*" && Section::from_name(section).is_none() {
                return Err(format!("line {}: unknown section '{section}'", n + 1));
            }
            entries.push((arch, prog, section.to_string(), reason.trim().to_string()));
        }
        Ok(KnownDivergences { entries })
    }

    /// The reason a mismatch is known, if it is.
    pub fn reason(&self, arch: Arch, prog: &str, section: Section) -> Option<&str> {
        self.entries.iter().find(|(a, p, s, _)| (a == "*" || a == arch.name()) && p == prog && (s == "*" || s == section.name())).map(|e| e.3.as_str())
    }
}

/// Per-arch tallies and the mismatches found.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// arch -> (programs with goldens, programs the model answered)
    pub counts: BTreeMap<Arch, (usize, usize)>,
    /// arch -> section -> programs whose section matched
    pub matched: BTreeMap<Arch, BTreeMap<Section, usize>>,
    /// arch -> section -> programs the section was compared for
    pub compared: BTreeMap<Arch, BTreeMap<Section, usize>>,
    /// (arch, program, mismatch, known reason)
    pub mismatches: Vec<(Arch, String, Mismatch, Option<String>)>,
    /// Why the model could not answer, with how many programs each.
    pub unavailable: BTreeMap<String, usize>,
    /// arch -> JIT images not compared: their `BPF_F_TEST_RND_HI32`
    /// immediates were random in the kernel's load and are not recorded.
    pub random_images: BTreeMap<Arch, usize>,
}

impl Report {
    /// Mismatches not listed in KNOWN_DIVERGENCES.
    pub fn unexplained(&self) -> impl Iterator<Item = &(Arch, String, Mismatch, Option<String>)> {
        self.mismatches.iter().filter(|m| m.3.is_none())
    }

    /// Records one program's comparison.
    pub fn add(&mut self, arch: Arch, prog: &str, truth: &Golden, model: Result<LoadOutcome, String>, known: &KnownDivergences) {
        let c = self.counts.entry(arch).or_default();
        c.0 += 1;
        let model = match model {
            Ok(m) => m,
            Err(why) => {
                *self.unavailable.entry(why).or_default() += 1;
                return;
            }
        };
        c.1 += 1;
        let diffs = compare(truth, &model);
        if !truth.jited.is_empty() && !jited_compared(truth) {
            *self.random_images.entry(arch).or_default() += 1;
        }
        for s in Section::ALL {
            let applies = match s {
                Section::Jited => jited_compared(truth),
                Section::Retval => truth.retval.is_some(),
                Section::Run => run_compared(truth),
                _ => true,
            };
            if !applies {
                continue;
            }
            *self.compared.entry(arch).or_default().entry(s).or_default() += 1;
            if !diffs.iter().any(|d| d.section == s) {
                *self.matched.entry(arch).or_default().entry(s).or_default() += 1;
            }
        }
        for d in diffs {
            let why = known.reason(arch, prog, d.section).map(str::to_string);
            self.mismatches.push((arch, prog.to_string(), d, why));
        }
    }

    /// The conformance table and the first mismatches.
    pub fn render(&self, max_mismatches: usize) -> String {
        let mut s = String::new();
        let mut rows = vec![{
            let mut h = vec!["arch".to_string(), "programs".into(), "modelled".into()];
            h.extend(Section::ALL.iter().map(|x| x.name().to_string()));
            h
        }];
        for (arch, (n, answered)) in &self.counts {
            let mut r = vec![arch.name().to_string(), n.to_string(), answered.to_string()];
            for sec in Section::ALL {
                let cmp = self.compared.get(arch).and_then(|m| m.get(&sec)).copied().unwrap_or(0);
                let ok = self.matched.get(arch).and_then(|m| m.get(&sec)).copied().unwrap_or(0);
                r.push(if cmp == 0 { "-".into() } else { format!("{ok}/{cmp} ({:.0}%)", 100.0 * ok as f64 / cmp as f64) });
            }
            rows.push(r);
        }
        let cols = rows[0].len();
        let widths: Vec<usize> = (0..cols).map(|i| rows.iter().map(|r| r[i].len()).max().unwrap_or(0)).collect();
        for r in &rows {
            let cells: Vec<String> = r.iter().enumerate().map(|(i, c)| format!("{c:<w$}", w = widths[i])).collect();
            let _ = writeln!(s, "{}", cells.join("  ").trim_end());
        }
        for (arch, n) in &self.random_images {
            let _ = writeln!(s, "{arch}: {n} JIT images not compared (BPF_F_TEST_RND_HI32: the kernel's random immediates are not recorded)");
        }
        for (why, n) in &self.unavailable {
            let _ = writeln!(s, "not modelled ({n} programs): {why}");
        }
        let unexplained: Vec<_> = self.unexplained().collect();
        let known = self.mismatches.len() - unexplained.len();
        let _ = writeln!(s, "{} mismatches, {known} of them known divergences", self.mismatches.len());
        for (arch, prog, m, _) in unexplained.iter().take(max_mismatches) {
            let _ = writeln!(s, "  {arch} {prog} {}: {}", m.section.name(), m.detail);
        }
        s
    }
}

/// The model's request for a golden: the golden's own log level (its header
/// says what it was recorded with).
pub fn request_as_recorded(mut req: LoadRequest, truth: &Golden) -> LoadRequest {
    if let Some((_, v)) = truth.header.iter().find(|(k, _)| k == "request")
        && let Some(l) = v.split(", ").find_map(|p| p.strip_prefix("log_level ")).and_then(|l| l.parse().ok())
    {
        req.log_level = l;
    }
    req.want_jited = req.arch.has_jit();
    req
}

/// Every loadable program of progs/ that has a golden for `arch`: its
/// name, its request as the golden was recorded ([`request_as_recorded`])
/// and the golden.
pub fn progs_with_goldens(replay: &crate::backend::replay::ReplayBackend, arch: Arch) -> Vec<(String, LoadRequest, Golden)> {
    let opts = crate::runner::RunOptions { arch, backend: replay.name().into(), verbosity: 0, filters: Vec::new() };
    crate::runner::plan(&opts, replay)
        .into_iter()
        .filter_map(|st| {
            let crate::runner::Plan::Load(job) = st.plan else { return None };
            let truth = replay.golden(&job.request).ok()?;
            Some((st.name, request_as_recorded(job.request, &truth), truth))
        })
        .collect()
}

/// Runs the model on every program of progs/ that has goldens for `arch`.
pub fn against_goldens(model: &dyn Backend, replay: &crate::backend::replay::ReplayBackend, arch: Arch, known: &KnownDivergences, report: &mut Report) {
    for (name, req, truth) in progs_with_goldens(replay, arch) {
        let out = model.probe(arch).and_then(|()| model.load(&req)).map_err(|u| u.0);
        report.add(arch, &name, &truth, out, known);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_divergences_need_reasons_and_match_by_arch_prog_section() {
        let k = KnownDivergences::parse("# c\n* iters/x log 7.3 prints a line we do not\nx86_64 a/b @unpriv * reason\n").unwrap();
        assert_eq!(k.reason(Arch::Arm64, "iters/x", Section::Log), Some("7.3 prints a line we do not"));
        assert_eq!(k.reason(Arch::Arm64, "iters/x", Section::Xlated), None);
        assert!(k.reason(Arch::X86_64, "a/b @unpriv", Section::Jited).is_some());
        assert!(k.reason(Arch::Arm64, "a/b @unpriv", Section::Jited).is_none());
        assert!(KnownDivergences::parse("* a/b log\n").is_err());
        assert!(KnownDivergences::parse("* a/b nosuch reason\n").is_err());
    }

    #[test]
    fn compare_finds_the_first_differing_line() {
        let truth = Golden { accepted: true, verified_insns: 3, log: "a\nb\n".into(), xlated: vec!["0: exit".into()], ..Default::default() };
        let model = LoadOutcome { accepted: true, verified_insns: 4, log: "a\nc\n".into(), xlated: vec!["0: exit".into()], ..Default::default() };
        let d = compare(&truth, &model);
        assert_eq!(d.iter().map(|m| m.section).collect::<Vec<_>>(), vec![Section::VerifiedInsns, Section::Log]);
        assert_eq!(d[1].detail, "line 2: kernel \"b\", model \"c\"");
    }
}

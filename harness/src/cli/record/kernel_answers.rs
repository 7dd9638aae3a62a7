//! `record --set` for the sets whose files hold their inputs (or whose
//! inputs the library builds) beside what 7.3 answered for each, in JSON
//! or in lines. Each set loads every input again, one boot per arch, and
//! either writes the answers or (`--check`) compares them with the stored
//! ones without what moves from boot to boot (kernel pointers, the
//! verification time and the digits it adds to `log_true_size`:
//! [`crate::recorded::stable_log`]).

use std::path::Path;
use std::time::{Duration, Instant};

use super::{RecordArgs, describe_backend, release_of, today};
use crate::backend::vm::{VmBackend, VmConfig};
use crate::backend::{self, Backend};
use crate::recorded::{fuzz_regressions, limits, map_create, verifier_front};
use crate::target::Arch;

/// The real kernel of `--backend`. A vm guest gets at least `memory_mb`
/// and `timeout` per request (the 1M-insn loads need room for their
/// per-insn data and minutes under TCG).
fn real_backend(a: &RecordArgs, memory_mb: u32, timeout: Duration) -> Result<Box<dyn Backend>, String> {
    if a.backend == "vm" {
        let mut cfg = VmConfig::from_env();
        cfg.memory_mb = cfg.memory_mb.max(memory_mb);
        cfg.request_timeout = cfg.request_timeout.max(timeout);
        return Ok(Box::new(VmBackend::new(cfg)));
    }
    let be = backend::by_name(&a.backend)?;
    if be.name() == "model" {
        return Err("goldens come from a real kernel: --backend vm or kernel".into());
    }
    Ok(be)
}

/// The project's top directory (the one with `tests/`).
fn project_root() -> std::path::PathBuf {
    let harness = Path::new(env!("CARGO_MANIFEST_DIR"));
    harness.parent().unwrap_or(harness).to_path_buf()
}

fn arches(a: &RecordArgs) -> Result<Vec<Arch>, String> {
    a.arch.split(',').map(|s| s.trim().parse::<Arch>()).collect()
}

fn picked(a: &RecordArgs, name: &str) -> bool {
    a.filters.is_empty() || a.filters.iter().any(|f| name.contains(f.as_str()))
}

/// Counts and reports what a check found, per arch and in all.
struct Tally {
    set: &'static str,
    /// What is counted: programs, maps.
    unit: &'static str,
    check: bool,
    same: usize,
    drift: Vec<String>,
    written: usize,
    per_arch: Vec<String>,
}

impl Tally {
    fn new(set: &'static str, unit: &'static str, check: bool) -> Tally {
        Tally { set, unit, check, same: 0, drift: Vec::new(), written: 0, per_arch: Vec::new() }
    }

    /// One program compared: `stored` and `now` are its texts without
    /// what moves from boot to boot (the first drift is shown in full).
    fn compare(&mut self, arch: Arch, name: &str, stored: &str, now: &str, file: &Path) {
        if stored == now {
            self.same += 1;
            return;
        }
        if self.drift.is_empty() {
            eprintln!("{arch} {}/{name}: stored (-) and now (+):\n{}", self.set, similar::TextDiff::from_lines(stored, now).unified_diff().context_radius(3));
        }
        self.drift.push(format!("{arch} {}/{name}: differs from {}", self.set, file.display()));
    }

    fn arch_done(&mut self, arch: Arch, programs: usize, drift_before: usize, took: Duration) {
        let line = if self.check {
            let drifted = self.drift.len() - drift_before;
            format!("{arch}: {} {} unchanged, {drifted} drifted in {:.0} s", programs - drifted, self.unit, took.as_secs_f64())
        } else {
            format!("{arch}: {programs} {} recorded in {:.0} s", self.unit, took.as_secs_f64())
        };
        eprintln!("record --set {} {line}", self.set);
        self.per_arch.push(line);
    }

    fn finish(self) -> Result<(), String> {
        let per_arch = if self.per_arch.is_empty() { String::new() } else { format!(" ({})", self.per_arch.join("; ")) };
        if self.check {
            println!("record --set {}: {} {} unchanged, {} drifted{per_arch}", self.set, self.same, self.unit, self.drift.len());
            if !self.drift.is_empty() {
                return Err(self.drift.join("\n"));
            }
        } else {
            println!("record --set {}: {} {} written{per_arch}", self.set, self.written, self.unit);
        }
        Ok(())
    }
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// `record --set verifier-front`: `expected/linux-7.3/<arch>/verifier-front/*.json`.
pub fn verifier_front_set(a: &RecordArgs) -> Result<(), String> {
    let be = real_backend(a, 0, Duration::ZERO)?;
    let mut tally = Tally::new("verifier-front", "programs", a.check);
    for arch in arches(a)? {
        let dir = verifier_front::dir(&a.out, arch);
        if !dir.is_dir() {
            eprintln!("record --set verifier-front: no {} for {arch}", dir.display());
            continue;
        }
        let files: Vec<_> = verifier_front::read_dir(&dir)?.into_iter().filter(|(_, c)| picked(a, &c.name)).collect();
        be.probe(arch).map_err(|u| format!("{arch}: {}", u.0))?;
        let release = release_of(be.as_ref(), arch);
        eprintln!("{arch} verifier-front: loading {} programs", files.len());
        let t0 = Instant::now();
        let cases: Vec<_> = files.iter().map(|(_, c)| c.clone()).collect();
        let now = verifier_front::record(be.as_ref(), arch, &release, &cases)?;
        let took = t0.elapsed();
        let drift_before = tally.drift.len();
        for ((path, old), new) in files.iter().zip(&now) {
            if a.check {
                tally.compare(arch, &old.name, &verifier_front::stable(old)?, &verifier_front::stable(new)?, path);
            } else {
                write(path, &verifier_front::render(new)?)?;
                tally.written += 1;
            }
        }
        tally.arch_done(arch, files.len(), drift_before, took);
    }
    tally.finish()
}

/// `record --set map-create`: `expected/linux-7.3/map_create.txt` (x86_64;
/// another arch's would be `map_create.<arch>.txt`).
pub fn map_create_set(a: &RecordArgs) -> Result<(), String> {
    let be = real_backend(a, 0, Duration::ZERO)?;
    let mut tally = Tally::new("map-create", "maps", a.check);
    for arch in arches(a)? {
        let name = if arch == Arch::X86_64 { "map_create.txt".to_string() } else { format!("map_create.{arch}.txt") };
        let path = a.out.join("linux-7.3").join(name);
        if !path.is_file() {
            eprintln!("record --set map-create: no {} for {arch}", path.display());
            continue;
        }
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let stored = map_create::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        be.probe(arch).map_err(|u| format!("{arch}: {}", u.0))?;
        let release = release_of(be.as_ref(), arch);
        // the format line stays; the two about the recording are new
        let format_line = stored.header.iter().find(|h| h.starts_with("# TYPE ")).cloned();
        let mut header = vec![
            format!("# Linux {release} {arch}: BPF_MAP_CREATE as root and unprivileged; backend {}.", describe_backend(be.as_ref(), arch)),
            format!("# Recorded by `bpf-selftest record --set map-create` on {}; do not edit.", today()),
        ];
        header.extend(format_line);
        eprintln!("{arch} map-create: creating {} maps", stored.cases.len());
        let t0 = Instant::now();
        let now = map_create::record(be.as_ref(), arch, &stored, &header)?;
        let took = t0.elapsed();
        let drift_before = tally.drift.len();
        if a.check {
            for (old, new) in stored.cases.iter().zip(&now.cases) {
                tally.compare(arch, &old.args(), &format!("{} => {}\n", old.args(), old.result), &format!("{} => {}\n", new.args(), new.result), &path);
            }
        } else {
            write(&path, &map_create::render(&now))?;
            tally.written += now.cases.len();
        }
        tally.arch_done(arch, stored.cases.len(), drift_before, took);
    }
    tally.finish()
}

/// `record --set limits`: `tests/limits/7.3-<arch>.json`, the cases of
/// [`limits::cases_for`] (filters pick some; the others stay as stored).
pub fn limits_set(a: &RecordArgs) -> Result<(), String> {
    // what the first recordings had: 6 GiB and 40 minutes per load
    let be = real_backend(a, 6144, Duration::from_secs(2400))?;
    let mut tally = Tally::new("limits", "programs", a.check);
    let root = project_root();
    for arch in arches(a)? {
        let path = limits::path(&root, arch);
        let stored = match std::fs::read_to_string(&path) {
            Ok(t) => limits::parse(&t).map_err(|e| format!("{}: {e}", path.display()))?,
            Err(_) => limits::Answers::new(),
        };
        let cases: Vec<_> = limits::cases_for(arch).into_iter().filter(|c| picked(a, c.name)).collect();
        be.probe(arch).map_err(|u| format!("{arch}: {}", u.0))?;
        eprintln!("{arch} limits: loading {} programs", cases.len());
        let t0 = Instant::now();
        let now = limits::record(be.as_ref(), arch, &cases)?;
        let took = t0.elapsed();
        let drift_before = tally.drift.len();
        if a.check {
            for c in &cases {
                let text = |x: Option<&limits::Answer>| x.map_or("not recorded\n".to_string(), |x| x.stable(c.log_level));
                tally.compare(arch, c.name, &text(stored.get(c.name)), &text(now.get(c.name)), &path);
            }
        } else {
            let mut all = stored.clone();
            all.extend(now);
            write(&path, &limits::render(&all)?)?;
            tally.written += cases.len();
        }
        tally.arch_done(arch, cases.len(), drift_before, took);
    }
    tally.finish()
}

/// `record --set fuzz-regressions`: `tests/fuzz_regressions/7.3-<arch>.json`
/// for the `.bin` inputs of that arch.
pub fn fuzz_regressions_set(a: &RecordArgs) -> Result<(), String> {
    // what the first recording had: 4 GiB and 30 minutes per load
    let be = real_backend(a, 4096, Duration::from_secs(1800))?;
    let mut tally = Tally::new("fuzz-regressions", "programs", a.check);
    let dir = project_root().join("tests/fuzz_regressions");
    let inputs = fuzz_regressions::read_inputs(&dir)?;
    for arch in arches(a)? {
        let path = fuzz_regressions::answers_path(&dir, arch);
        let mine: Vec<_> = inputs.iter().filter(|i| i.config.arch == arch && picked(a, &i.name)).cloned().collect();
        if mine.is_empty() {
            continue;
        }
        let stored = match std::fs::read_to_string(&path) {
            Ok(t) => fuzz_regressions::parse(&t).map_err(|e| format!("{}: {e}", path.display()))?,
            Err(_) => fuzz_regressions::Answers::new(),
        };
        be.probe(arch).map_err(|u| format!("{arch}: {}", u.0))?;
        eprintln!("{arch} fuzz-regressions: loading {} programs", mine.len());
        let t0 = Instant::now();
        let now = fuzz_regressions::record(be.as_ref(), &mine)?;
        let took = t0.elapsed();
        let drift_before = tally.drift.len();
        if a.check {
            for i in &mine {
                let level = i.config.log_level;
                let text = |x: Option<&fuzz_regressions::Answer>| x.map_or("not recorded\n".to_string(), |x| x.stable(level));
                tally.compare(arch, &i.name, &text(stored.get(&i.name)), &text(now.get(&i.name)), &path);
            }
        } else {
            let mut all = stored.clone();
            all.extend(now);
            write(&path, &fuzz_regressions::render(&all)?)?;
            tally.written += mine.len();
        }
        tally.arch_done(arch, mine.len(), drift_before, took);
    }
    tally.finish()
}

/// `record --set ctx-probes`: `tests/fixups_ctx/probes.txt`, every probe
/// loaded again on each arch (one batch); `--check` compares all but the
/// poison immediates 7.3 draws at random.
pub fn ctx_probes_set(a: &RecordArgs) -> Result<(), String> {
    use crate::recorded::ctx_probes::{self, ProbesFile};
    let be = real_backend(a, 0, Duration::ZERO)?;
    let mut tally = Tally::new("ctx-probes", "probes", a.check);
    let path = project_root().join("tests/fixups_ctx/probes.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let stored = ctx_probes::parse(&text)?;
    let mut now = stored.probes.clone();
    let mut releases = Vec::new();
    for arch in arches(a)? {
        let picked_probes: Vec<usize> = (0..stored.probes.len()).filter(|&k| picked(a, &stored.probes[k].name)).collect();
        be.probe(arch).map_err(|u| format!("{arch}: {}", u.0))?;
        releases.push(release_of(be.as_ref(), arch));
        eprintln!("{arch} ctx-probes: loading {} probes", picked_probes.len());
        let t0 = Instant::now();
        let probes: Vec<_> = picked_probes.iter().map(|&k| stored.probes[k].clone()).collect();
        let answers = ctx_probes::record(be.as_ref(), arch, &probes)?;
        let took = t0.elapsed();
        let drift_before = tally.drift.len();
        for (&k, answer) in picked_probes.iter().zip(answers) {
            let p = &mut now[k];
            if a.check {
                let show = |x: Option<&ctx_probes::Answer>| x.map_or("not recorded\n".to_string(), |x| format!("{:?}\n", ctx_probes::without_random_imms(x)));
                tally.compare(arch, &p.name, &show(stored.probes[k].answer(arch)), &show(Some(&answer)), &path);
            }
            match p.answers.iter_mut().find(|(x, _)| *x == arch) {
                Some(slot) => slot.1 = answer,
                None => p.answers.push((arch, answer)),
            }
        }
        tally.written += picked_probes.len();
        tally.arch_done(arch, picked_probes.len(), drift_before, took);
    }
    if !a.check {
        let header = vec![
            "# Loads and stores of every ctx field of the modelled program types, one per program, and what".to_string(),
            format!("# Linux {} made of each (QEMU, prog_flags BPF_F_TEST_RND_HI32, log level 1): the xlated", releases.join(", ")),
            "# program as raw 8-byte slots in memory order, or `rejected` and the log line that said why.".to_string(),
            format!("# Recorded by `bpf-selftest record --set ctx-probes` on {}; do not edit.", today()),
            "# Blocks: `prog NAME PROG_TYPE EXPECTED_ATTACH_TYPE`, `asm` (statements, `;` separated), then".to_string(),
            "# one line per arch.".to_string(),
        ];
        write(&path, &ctx_probes::render(&ProbesFile { header, probes: now }))?;
    }
    tally.finish()
}

/// `record --set fixup-calls`: `tests/fixups_calls/recorded-<arch>.txt`
/// (the programs of that directory) and `imported-calls-<arch>.txt` (the
/// calls left in the kernel's own selftests; needs the source subset).
pub fn fixup_calls_set(a: &RecordArgs) -> Result<(), String> {
    use crate::recorded::fixup_programs as fp;
    let be = real_backend(a, 0, Duration::ZERO)?;
    let mut tally = Tally::new("fixup-calls", "programs", a.check);
    let dir = project_root().join("tests/fixups_calls");
    let programs = fp::programs(&dir)?;
    for arch in arches(a)? {
        be.probe(arch).map_err(|u| format!("{arch}: {}", u.0))?;
        let release = release_of(be.as_ref(), arch);
        let reqs = programs.iter().map(|(_, p)| fp::calls_request(p, arch)).collect::<Result<Vec<_>, _>>()?;
        let jobs = fp::imported_jobs(arch).ok_or("the kernel's selftests need the 7.3 source subset (setup-vm.sh --source) and gcc")?;
        eprintln!("{arch} fixup-calls: loading {} programs and {} imported ones", reqs.len(), jobs.len());
        let t0 = Instant::now();
        let all: Vec<_> = reqs.into_iter().chain(jobs.iter().map(|(_, r)| r.clone())).collect();
        let outs = be.load_batch(&all);
        let took = t0.elapsed();
        let drift_before = tally.drift.len();
        let (mine, imported) = outs.split_at(programs.len());
        let mut text = fp::recorded_header(arch, &release);
        for ((name, _), o) in programs.iter().zip(mine) {
            let o = o.as_ref().map_err(|u| format!("{arch} {name}: {}", u.0))?;
            text += &fp::recorded_section(name, o);
        }
        let mut calls = fp::imported_calls_header(arch, &release);
        for ((name, _), o) in jobs.iter().zip(imported) {
            calls += &fp::imported_calls_line(name, arch, o);
        }
        for (path, new) in [(fp::calls_recording_path(&dir, arch), text), (fp::imported_calls_path(&dir, arch), calls)] {
            if a.check {
                let old = std::fs::read_to_string(&path).unwrap_or_default();
                compare_by_entry(&mut tally, arch, &path, &old, &new);
            } else {
                write(&path, &new)?;
            }
        }
        tally.written += programs.len() + jobs.len();
        tally.arch_done(arch, programs.len() + jobs.len(), drift_before, took);
    }
    tally.finish()
}

/// A recording of `== NAME` sections or `NAME: ...` lines compared entry by
/// entry, headers aside.
fn compare_by_entry(tally: &mut Tally, arch: Arch, path: &Path, old: &str, new: &str) {
    let entries = |t: &str| {
        let mut m: Vec<(String, String)> = Vec::new();
        for l in t.lines().filter(|l| !l.starts_with('#')) {
            if let Some(n) = l.strip_prefix("== ") {
                m.push((n.to_string(), String::new()));
            } else if let Some((n, rest)) = l.split_once(": ").or_else(|| l.strip_suffix(':').map(|n| (n, ""))) {
                m.push((n.to_string(), format!("{rest}\n")));
            } else if let Some(last) = m.last_mut() {
                last.1 += &format!("{l}\n");
            }
        }
        m
    };
    let (old, new) = (entries(old), entries(new));
    let mut unrecorded = 0;
    for (name, now) in &new {
        match old.iter().find(|(n, _)| n == name) {
            Some((_, stored)) => tally.compare(arch, name, stored, now, path),
            // an imported selftest the model has come to verify since
            None => unrecorded += 1,
        }
    }
    if unrecorded > 0 {
        eprintln!("{arch} {}: {unrecorded} entries of {} not recorded yet (recording without --check adds them)", tally.set, path.display());
    }
    for (name, _) in old.iter().filter(|(n, _)| !new.iter().any(|(m, _)| m == n)) {
        tally.drift.push(format!("{arch} {}/{name}: recorded, not loaded now", tally.set));
    }
}

/// `record --set fixup-misc`: `tests/fixups_misc/linux-7.3/<arch>/*.txt`,
/// a golden per case of `tests/fixups_misc/cases`.
pub fn fixup_misc_set(a: &RecordArgs) -> Result<(), String> {
    use crate::golden::Golden;
    use crate::recorded::fixup_programs as fp;
    let be = real_backend(a, 0, Duration::ZERO)?;
    let mut tally = Tally::new("fixup-misc", "programs", a.check);
    let root = project_root().join("tests/fixups_misc");
    for arch in arches(a)? {
        let cases: Vec<_> = fp::misc_cases(&root.join("cases"), arch)?.into_iter().filter(|(n, _)| picked(a, n)).collect();
        be.probe(arch).map_err(|u| format!("{arch}: {}", u.0))?;
        eprintln!("{arch} fixup-misc: loading {} cases", cases.len());
        let t0 = Instant::now();
        let outs = be.load_batch(&cases.iter().map(|(_, r)| r.clone()).collect::<Vec<_>>());
        let took = t0.elapsed();
        let drift_before = tally.drift.len();
        for ((name, _), o) in cases.iter().zip(outs) {
            let o = o.map_err(|u| format!("{arch} {name}: {}", u.0))?;
            let header = vec![
                ("program".to_string(), format!("fixups_misc/{name}")),
                ("kernel".to_string(), be.kernel_release()),
                ("arch".to_string(), arch.name().to_string()),
            ];
            let new = Golden::from_outcome(header, &o);
            let path = fp::misc_truth_path(&root.join("linux-7.3"), arch, name);
            if a.check {
                let old = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display())).and_then(|t| Golden::parse(&t));
                let show = |g: &Golden| super::comparable(g).to_text();
                tally.compare(arch, name, &old.as_ref().map_or_else(|e| format!("{e}\n"), show), &show(&new), &path);
            } else {
                std::fs::create_dir_all(path.parent().unwrap_or(&root)).map_err(|e| e.to_string())?;
                write(&path, &new.to_text())?;
                tally.written += 1;
            }
        }
        tally.arch_done(arch, cases.len(), drift_before, took);
    }
    tally.finish()
}

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

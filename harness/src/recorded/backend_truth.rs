//! What real kernels answered for the programs of `tests/oracle_progs/*.s`,
//! `record --set backend-truth`: `expected/oracle/vm-<arch>.json` (7.3
//! under QEMU, `--backend vm`, one boot per arch) and
//! `expected/oracle/live-<arch>.json` (the running kernel, `--backend
//! kernel`), which tests/kernel/vm_backend.rs and tests/kernel/kernel_backend.rs hold the
//! two backends to.
//!
//! A program's options are its `# oracle:` lines ([`super::oracle_asm`]);
//! the programs load in file-name order, and, as when this set was first
//! recorded, a load failing at log level 0 is not retried at level 1 (its
//! log stays empty) and an unprivileged program is loaded even where the
//! kernel refuses unprivileged BPF (its EPERM is the answer). Per program:
//! verdict, errno, log level and log, `verified_insns` (of an accepted
//! program), map ids, the xlated program (test_loader's text by 7.3's
//! disasm.c, and its instructions, an ld_imm64 as one 32-digit entry), the
//! JIT image with its function lengths, and the test run's retval and
//! errno (when it ran).
//!
//! `--check` loads again and compares everything but what moves from boot
//! to boot (kernel addresses; map ids on the running kernel). The running
//! kernel is compared on verdicts and results alone when it is another
//! build than the recorded one, as tests/kernel/kernel_backend.rs holds it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::oracle_asm::AsmProg;
use super::{Tally, comparable_images, disasm_c, hex, mask_hex_pointers, mask_xlated_pointers, unhex, xlated_entries};
use crate::backend::kernel::KernelBackend;
use crate::backend::loader::LoadSettings;
use crate::backend::{Backend, LoadOutcome, LoadRequest, Unavailable};
use crate::cli::record::RecordArgs;
use crate::target::Arch;

/// One recording file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Truth {
    pub recorded_with: String,
    /// `vm` or `live`.
    pub backend: String,
    pub release: String,
    pub arch: String,
    pub qemu_cpu: Option<String>,
    pub programs: Vec<Program>,
}

/// What the kernel answered for one program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    pub name: String,
    pub accepted: bool,
    pub errno: i32,
    pub log_level: u32,
    pub log: String,
    pub verified_insns: Option<u32>,
    pub map_ids: Vec<u32>,
    /// test_loader's xlated dump, `N: text` lines each ending in `\n`.
    pub xlated_text: String,
    pub xlated_hex: Vec<String>,
    pub jited_hex: String,
    pub func_lens: Vec<usize>,
    pub retval: Option<u32>,
    pub test_run_errno: Option<i32>,
}

impl Truth {
    pub fn read(path: &Path) -> Result<Truth, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn program(&self, name: &str) -> Option<&Program> {
        self.programs.iter().find(|p| p.name == name)
    }
}

impl Program {
    /// The xlated program, one slot per insn.
    pub fn xlated(&self) -> Result<Vec<bpf_isa::Insn>, String> {
        super::slots_of_entries(&self.xlated_hex)
    }

    /// The JIT image per function.
    pub fn images(&self) -> Result<Vec<Vec<u8>>, String> {
        let image = unhex(&self.jited_hex)?;
        let mut out = Vec::new();
        let mut at = 0;
        for &n in &self.func_lens {
            out.push(image.get(at..at + n).ok_or("function lengths past the image")?.to_vec());
            at += n;
        }
        Ok(out)
    }
}

/// `tests/oracle_progs/*.s`, in file-name order.
pub fn programs(root: &Path) -> Result<Vec<AsmProg>, String> {
    let dir = root.join("tests/oracle_progs");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "s"))
        .collect();
    paths.sort();
    paths.iter().map(|p| AsmProg::read(p)).collect()
}

/// How the set loads (see the module comment).
pub fn settings() -> LoadSettings {
    LoadSettings { retry_at_level_1: false }
}

/// The recording of one outcome.
fn program(name: &str, req: &LoadRequest, out: &LoadOutcome) -> Result<Program, String> {
    let ran = out.accepted && req.test_run.is_some();
    Ok(Program {
        name: name.to_string(),
        accepted: out.accepted,
        errno: out.errno,
        log_level: req.log_level,
        log: out.log.clone(),
        verified_insns: out.accepted.then_some(out.verified_insns),
        map_ids: out.map_ids.clone(),
        xlated_text: disasm_c::xlated_dump(&out.xlated_insns)?.iter().map(|l| format!("{l}\n")).collect(),
        xlated_hex: xlated_entries(&out.xlated_insns),
        jited_hex: hex(&out.jited_funcs.concat()),
        func_lens: out.jited_funcs.iter().map(Vec::len).collect(),
        retval: if ran { out.retval } else { None },
        test_run_errno: ran.then_some(out.test_run_errno),
    })
}

/// What must not drift: all but kernel addresses (and, on the running
/// kernel, map ids: the xlated program is compared with maps as indexes).
fn comparable(p: &Program, arch: Arch, live: bool) -> Result<impl PartialEq + std::fmt::Debug, String> {
    let mut xlated = p.xlated()?;
    if live {
        xlated = crate::backend::normalize::renumber_maps(&xlated, &p.map_ids, &|k| k as u32);
    }
    let text = if live { String::new() } else { mask_hex_pointers(&p.xlated_text) };
    let ids: Vec<u32> = if live { vec![0; p.map_ids.len()] } else { p.map_ids.clone() };
    Ok((
        (p.accepted, p.errno, p.log_level, crate::golden::mask_kernel_pointers(&p.log), p.verified_insns),
        (ids, text, mask_xlated_pointers(&xlated)),
        (p.func_lens.len(), comparable_images(arch, &p.images()?)?),
        (p.retval, p.test_run_errno),
    ))
}

/// Verdict and results: what is compared on another build of a kernel.
fn results(p: &Program) -> (bool, i32, Option<u32>, Option<i32>) {
    (p.accepted, p.errno, p.retval, p.test_run_errno)
}

/// `record --set backend-truth`.
pub fn record(a: &RecordArgs) -> Result<(), String> {
    let root = super::root_of(&a.out);
    let progs: Vec<AsmProg> = programs(&root)?.into_iter().filter(|p| a.filters.is_empty() || a.filters.iter().any(|f| p.name.contains(f.as_str()))).collect();
    let arches = a.arch.split(',').map(|s| s.trim().parse::<Arch>()).collect::<Result<Vec<_>, _>>()?;
    match a.backend.as_str() {
        "vm" => {
            let mut failed = Vec::new();
            for arch in arches {
                if let Err(e) = record_arch(a, &progs, arch, false) {
                    eprintln!("record --set backend-truth: {arch}: {e}");
                    failed.push(arch.name());
                }
            }
            if failed.is_empty() { Ok(()) } else { Err(format!("backend-truth: {} failed", failed.join(", "))) }
        }
        "kernel" => {
            let arch = Arch::host().ok_or("the host arch is not one the project targets")?;
            record_arch(a, &progs, arch, true)
        }
        other => Err(format!("backend-truth records from vm or kernel, not {other}")),
    }
}

fn record_arch(a: &RecordArgs, progs: &[AsmProg], arch: Arch, live: bool) -> Result<(), String> {
    let t0 = Instant::now();
    let path = a.out.join(format!("oracle/{}-{}.json", if live { "live" } else { "vm" }, arch.name()));
    let (reqs, at) = super::oracle_asm::requests(&progs.iter().collect::<Vec<_>>(), "oracle_progs", arch)?;
    let (outs, release, backend, cpu): (Vec<Result<LoadOutcome, Unavailable>>, String, String, Option<String>) = if live {
        let kb = KernelBackend::default();
        kb.probe(arch).map_err(|u| u.0)?;
        (reqs.iter().map(|r| kb.load_with(r, &settings())).collect(), kb.kernel_release(), "live".into(), None)
    } else {
        let vm = super::vm_with_cpu(arch, None);
        vm.probe(arch).map_err(|u| format!("{arch}: {}", u.0))?;
        eprintln!("{arch} backend truth: {} programs in one boot", progs.len());
        let outs = vm.load_batch_with(&reqs, &settings());
        let cpu = vm.config().cpu(arch).to_string();
        (outs, vm.config().release(arch).unwrap_or_default(), "vm".into(), Some(cpu))
    };
    let mut now = Vec::new();
    for (p, k) in progs.iter().zip(at) {
        let out = outs[k].as_ref().map_err(|u| format!("{}: {}", p.name, u.0))?;
        now.push(program(&p.name, &reqs[k], out)?);
    }
    let stored = Truth::read(&path).ok();
    let same_build = stored.as_ref().is_some_and(|s| s.release == release);
    let mut tally = Tally::default();
    if a.check {
        let stored = stored.as_ref().ok_or_else(|| format!("{}: no recording to check", path.display()))?;
        if !same_build {
            eprintln!("{}: recorded on {}, running {release}: verdicts and results compared", path.display(), stored.release);
        }
        for p in &now {
            let what = format!("{} {}", path.display(), p.name);
            match stored.program(&p.name) {
                Some(s) if same_build => tally.compare(&what, &comparable(s, arch, live)?, &comparable(p, arch, live)?),
                Some(s) => tally.compare(&what, &results(s), &results(p)),
                None => tally.drifted.push(format!("{what}: not recorded")),
            }
        }
        for s in stored.programs.iter().filter(|s| !progs.iter().any(|p| p.name == s.name)) {
            if a.filters.is_empty() {
                tally.drifted.push(format!("{} {}: recorded, but tests/oracle_progs has no such program", path.display(), s.name));
            }
        }
    } else {
        // a filtered recording keeps the programs it did not load
        let mut programs = now.clone();
        if let Some(s) = &stored {
            for old in s.programs.iter().filter(|o| !now.iter().any(|p| p.name == o.name) && !a.filters.is_empty()) {
                programs.push(old.clone());
            }
            programs.sort_by(|x, y| x.name.cmp(&y.name));
        }
        let tool = if live { "--backend kernel".to_string() } else { "--backend vm".to_string() };
        let doc = Truth {
            recorded_with: format!(
                "bpf-selftest record --set backend-truth {tool} ({}) on {}",
                if live { "the running kernel".to_string() } else { format!("QEMU TCG, -cpu {}", cpu.clone().unwrap_or_default()) },
                crate::cli::record::today()
            ),
            backend,
            release,
            arch: arch.name().to_string(),
            qemu_cpu: cpu,
            programs,
        };
        std::fs::write(&path, super::to_json(&doc, true)?).map_err(|e| format!("{}: {e}", path.display()))?;
        tally.written = now.len();
    }
    tally.finish(&format!("backend-truth ({})", path.display()), a.check, t0.elapsed().as_secs_f64())
}

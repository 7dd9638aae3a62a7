//! The JIT goldens of instruction forms, `record --set jit-forms`:
//!
//! * `expected/jit/x86_64-forms.json`: programs written to reach the x86-64
//!   JIT's forms, each with its asm (the input, `# oracle:` options on its
//!   first line), what 7.3 made of it (the xlated program, ld_imm64 as one
//!   32-digit entry with map ids as the kernel numbered them, and its text;
//!   the JIT image and its function lengths) and facts the dumps do not show
//!   (`direct_tail_calls`, `probe_mem`, `priv_stack`, `stack_depths`,
//!   `hidden_exception_cb`): inputs of the model tests that no dump gives,
//!   carried over as they are. All in one boot, in file order, on the
//!   file's `qemu_cpu`.
//! * `expected/jit/arm64-forms/<name>.txt`: the programs of the `.jobs`
//!   files of `tests/jit_forms/arm64/`, one boot per file on its `# cpu:`
//!   (LL/SC atomics need a CPU without LSE: cortex-a57), in the golden
//!   format's result, xlated (map ids as numbered), xlated_hex (map ids as
//!   indexes), jited_hex and jited sections. A rejected program is not
//!   written.
//! * `expected/jit_disasm/oracle-<arch>.json`: real 7.3 images and
//!   test_loader's text of them, for the project's printer; each entry names
//!   its asm file, and `name@cpu` entries were loaded on that QEMU CPU.
//!
//! Texts come from 7.3's disasm.c ([`super::disasm_c`]) and LLVM
//! ([`super::llvm_text`]), never from the project's printers. `--check`
//! compares everything but what moves from boot to boot: kernel addresses
//! in xlated `ld_imm64`s and in the images (compared as LLVM's text with
//! address loads, calls and jumps out of the image masked, and the number of
//! other bytes).
//!
//! The programs load as [`super::oracle_asm::requests`] loads them (which
//! reproduces the map ids of the first recording).

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::oracle_asm::{AsmProg, Jobs};
use super::{Tally, comparable_images, disasm_c, hex, llvm_text, mask_hex_pointers, mask_xlated_pointers, unhex, xlated_entries};
use crate::backend::vm::VmBackend;
use crate::backend::{Backend, LoadOutcome};
use crate::cli::record::RecordArgs;
use crate::golden::Golden;
use crate::target::Arch;

/// `expected/jit/x86_64-forms.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct X86Forms {
    pub recorded_with: String,
    pub release: String,
    pub qemu_cpu: String,
    pub kaslr: bool,
    pub bpf_jit_harden: String,
    pub programs: Vec<X86Form>,
    pub about: String,
}

/// One program of [`X86Forms`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct X86Form {
    pub name: String,
    pub asm: String,
    pub xlated_hex: Vec<String>,
    pub xlated_text: Vec<String>,
    pub jited_hex: String,
    pub func_lens: Vec<usize>,
    pub direct_tail_calls: Vec<usize>,
    pub probe_mem: Vec<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priv_stack: Option<Vec<usize>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack_depths: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden_exception_cb: Option<usize>,
}

/// `expected/jit_disasm/oracle-<arch>.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OracleImages {
    pub source: String,
    pub programs: Vec<OracleImage>,
}

/// One image of [`OracleImages`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OracleImage {
    pub name: String,
    /// The asm file, relative to the repository (or a path outside it).
    pub asm: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qemu_cpu: Option<String>,
    pub func_lens: Vec<usize>,
    pub hex: String,
    /// test_loader's text of the image.
    pub tl: String,
    pub tl_engine: String,
}

/// An image split by its function lengths.
fn split(image_hex: &str, lens: &[usize]) -> Result<Vec<Vec<u8>>, String> {
    let image = unhex(image_hex)?;
    let mut out = Vec::new();
    let mut at = 0;
    for &n in lens {
        out.push(image.get(at..at + n).ok_or_else(|| format!("function lengths {lens:?} past an image of {} bytes", image.len()))?.to_vec());
        at += n;
    }
    Ok(out)
}

impl X86Form {
    /// The JIT image per function.
    pub fn images(&self) -> Result<Vec<Vec<u8>>, String> {
        split(&self.jited_hex, &self.func_lens)
    }

    /// The xlated program, one slot per insn.
    pub fn xlated(&self) -> Result<Vec<bpf_isa::Insn>, String> {
        super::slots_of_entries(&self.xlated_hex)
    }
}

impl OracleImage {
    /// The JIT image per function.
    pub fn images(&self) -> Result<Vec<Vec<u8>>, String> {
        split(&self.hex, &self.func_lens)
    }
}

pub fn read_x86_forms(path: &Path) -> Result<X86Forms, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn read_oracle_images(path: &Path) -> Result<OracleImages, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The arm64 forms goldens, by file name.
pub fn read_arm64_forms(dir: &Path) -> Result<Vec<(String, Golden)>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let name = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
            Ok((name, Golden::parse(&text).map_err(|e| format!("{}: {e}", p.display()))?))
        })
        .collect()
}

/// One program loaded: the outcome and its texts.
struct Loaded {
    out: LoadOutcome,
    xlated_text: Vec<String>,
}

/// Loads `progs` in order in one fresh boot of `vm`.
fn load_all(vm: &VmBackend, progs: &[&AsmProg], group: &str, arch: Arch) -> Result<Vec<Loaded>, String> {
    let (reqs, at) = super::oracle_asm::requests(progs, group, arch)?;
    vm.probe(arch).map_err(|u| format!("{arch}: {}", u.0))?;
    let mut outs = vm.load_batch(&reqs);
    vm.shutdown(arch);
    let mut loaded = Vec::new();
    for (p, k) in progs.iter().zip(at) {
        let out = std::mem::replace(&mut outs[k], Err(crate::backend::Unavailable(String::new()))).map_err(|u| format!("{group}/{}: {}", p.name, u.0))?;
        let xlated_text = disasm_c::texts(&disasm_c::instructions(&out.xlated_insns))?;
        loaded.push(Loaded { out, xlated_text });
    }
    Ok(loaded)
}

/// `record --set jit-forms`.
pub fn record(a: &RecordArgs) -> Result<(), String> {
    if a.backend != "vm" {
        return Err("jit-forms are recorded from 7.3 under QEMU: --backend vm".into());
    }
    let arches = a.arch.split(',').map(|s| s.trim().parse::<Arch>()).collect::<Result<Vec<_>, _>>()?;
    let root = super::root_of(&a.out);
    let mut failed = Vec::new();
    let mut run = |what: &str, r: Result<(), String>| {
        if let Err(e) = r {
            eprintln!("record --set jit-forms: {what}: {e}");
            failed.push(what.to_string());
        }
    };
    for arch in arches {
        match arch {
            Arch::X86_64 => run("x86_64 forms", x86_forms(a)),
            Arch::Arm64 => run("arm64 forms", arm64_forms(a, &root)),
            _ => continue,
        }
        run(&format!("{arch} oracle images"), oracle_images(a, &root, arch));
    }
    if failed.is_empty() { Ok(()) } else { Err(format!("jit-forms: {} failed", failed.join(", "))) }
}

fn wanted(a: &RecordArgs, name: &str) -> bool {
    a.filters.is_empty() || a.filters.iter().any(|f| name.contains(f.as_str()))
}

/// What of an x86 form must not drift.
fn x86_comparable(f: &X86Form) -> Result<impl PartialEq + std::fmt::Debug, String> {
    let text: Vec<String> = f.xlated_text.iter().map(|t| mask_hex_pointers(t)).collect();
    Ok((mask_xlated_pointers(&f.xlated()?), text, comparable_images(Arch::X86_64, &f.images()?)?))
}

fn x86_forms(a: &RecordArgs) -> Result<(), String> {
    let t0 = Instant::now();
    let path = a.out.join("jit/x86_64-forms.json");
    let stored = read_x86_forms(&path)?;
    let progs: Vec<AsmProg> = stored.programs.iter().map(|f| AsmProg::parse(&f.name, &f.asm, &[], Path::new("."))).collect::<Result<_, _>>()?;
    let vm = super::vm_with_cpu(Arch::X86_64, Some(&stored.qemu_cpu));
    eprintln!("x86_64 forms: {} programs in one boot (-cpu {})", progs.len(), stored.qemu_cpu);
    let loaded = load_all(&vm, &progs.iter().collect::<Vec<_>>(), "jit_forms", Arch::X86_64)?;
    let release = vm.config().release(Arch::X86_64).unwrap_or_default();
    let mut now = X86Forms {
        recorded_with: format!("bpf-selftest record --set jit-forms ({}, {}), {}", super::describe_vm(&vm, Arch::X86_64), release, crate::cli::record::today()),
        release,
        programs: Vec::new(),
        ..stored.clone()
    };
    let mut tally = Tally::default();
    for (f, l) in stored.programs.iter().zip(&loaded) {
        if !l.out.accepted {
            return Err(format!("x86_64 forms {}: rejected ({}):\n{}", f.name, l.out.errno, l.out.log));
        }
        let new = X86Form {
            xlated_hex: xlated_entries(&l.out.xlated_insns),
            xlated_text: l.xlated_text.clone(),
            jited_hex: hex(&l.out.jited_funcs.concat()),
            func_lens: l.out.jited_funcs.iter().map(Vec::len).collect(),
            ..f.clone()
        };
        if a.check && wanted(a, &f.name) {
            tally.compare(&format!("x86_64 forms/{}", f.name), &x86_comparable(f)?, &x86_comparable(&new)?);
        }
        now.programs.push(if wanted(a, &f.name) { new } else { f.clone() });
    }
    if !a.check {
        std::fs::write(&path, super::to_json(&now, false)?).map_err(|e| format!("{}: {e}", path.display()))?;
        tally.written = now.programs.len();
    }
    tally.finish("jit-forms (x86_64-forms.json)", a.check, t0.elapsed().as_secs_f64())
}

/// An arm64 forms golden: the sections the first recording wrote.
fn render_arm64_form(name: &str, release: &str, backend: &str, l: &Loaded, jited: &[String]) -> String {
    let mut s = format!("# program: jit_forms/{name}\n# kernel: {release}\n# arch: arm64\n# backend: {backend}\n");
    s.push_str(&format!("# recorded: by `bpf-selftest record --set jit-forms` on {}\n", crate::cli::record::today()));
    s.push_str("== result\naccepted\n== xlated\n");
    let insns = disasm_c::instructions(&l.out.xlated_insns);
    let mut at = 0;
    for (i, t) in insns.iter().zip(&l.xlated_text) {
        s.push_str(&format!("{at}: {t}\n"));
        at += i.len();
    }
    s.push_str("== xlated_hex\n");
    for i in crate::backend::normalize::renumber_maps(&l.out.xlated_insns, &l.out.map_ids, &|k| k as u32) {
        s.push_str(&bpf_isa::insn::to_hex(i));
        s.push('\n');
    }
    s.push_str("== jited_hex\n");
    for (k, f) in l.out.jited_funcs.iter().enumerate() {
        s.push_str(&format!("func #{k}: {}\n", hex(f)));
    }
    s.push_str("== jited\n");
    for line in jited {
        s.push_str(line);
        s.push('\n');
    }
    s
}

/// What of an arm64 forms golden must not drift.
fn arm64_comparable(g: &Golden) -> Result<impl PartialEq + std::fmt::Debug, String> {
    let funcs = g.jited_hex.iter().map(|h| unhex(h)).collect::<Result<Vec<_>, _>>()?;
    let xlated: Vec<String> = g.xlated.iter().map(|t| mask_hex_pointers(t)).collect();
    Ok((g.accepted, xlated, mask_xlated_pointers(&g.xlated_insns), comparable_images(Arch::Arm64, &funcs)?))
}

fn arm64_forms(a: &RecordArgs, root: &Path) -> Result<(), String> {
    let t0 = Instant::now();
    let dir = a.out.join("jit/arm64-forms");
    let jobs_dir = root.join("tests/jit_forms/arm64");
    let mut jobs: Vec<PathBuf> = std::fs::read_dir(&jobs_dir)
        .map_err(|e| format!("{}: {e}", jobs_dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jobs"))
        .collect();
    jobs.sort();
    let mut tally = Tally::default();
    for path in jobs {
        let j = Jobs::read(&path)?;
        if !j.progs.iter().any(|p| wanted(a, &p.name)) {
            continue;
        }
        // the whole file even when filtered: map ids follow the order of loads
        let vm = super::vm_with_cpu(Arch::Arm64, j.cpu.as_deref());
        eprintln!("arm64 forms: {} ({} programs, one boot, -cpu {})", path.display(), j.progs.len(), vm.config().cpu(Arch::Arm64));
        let loaded = load_all(&vm, &j.progs.iter().collect::<Vec<_>>(), "jit_forms", Arch::Arm64)?;
        let release = vm.config().release(Arch::Arm64).unwrap_or_default();
        for (p, l) in j.progs.iter().zip(&loaded) {
            if !wanted(a, &p.name) {
                continue;
            }
            let file = dir.join(format!("{}.txt", p.name));
            if !l.out.accepted {
                // the first recording wrote no golden for a rejected program
                if a.check && file.is_file() {
                    tally.drifted.push(format!("arm64 forms/{}: now rejected (errno {})", p.name, l.out.errno));
                } else {
                    eprintln!("arm64 forms/{}: rejected (errno {}), not written", p.name, l.out.errno);
                }
                continue;
            }
            let jited = llvm_text::test_loader_text(Arch::Arm64, &l.out.jited_funcs)?;
            let text = render_arm64_form(&p.name, &release, &super::describe_vm(&vm, Arch::Arm64), l, &jited);
            if a.check {
                let stored = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
                let stored = Golden::parse(&stored).map_err(|e| format!("{}: {e}", file.display()))?;
                let new = Golden::parse(&text)?;
                tally.compare(&format!("arm64 forms/{}", p.name), &arm64_comparable(&stored)?, &arm64_comparable(&new)?);
            } else {
                std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
                tally.written += 1;
            }
        }
    }
    tally.finish("jit-forms (arm64-forms)", a.check, t0.elapsed().as_secs_f64())
}

/// What of an oracle image must not drift.
fn image_comparable(arch: Arch, i: &OracleImage) -> Result<impl PartialEq + std::fmt::Debug, String> {
    let funcs = i.images()?;
    let tl: Vec<String> = crate::cli::record::mask_jited_addresses(&i.tl.lines().map(str::to_string).collect::<Vec<_>>()).0;
    Ok((funcs.len(), comparable_images(arch, &funcs)?, tl))
}

fn oracle_images(a: &RecordArgs, root: &Path, arch: Arch) -> Result<(), String> {
    let t0 = Instant::now();
    let path = a.out.join(format!("jit_disasm/oracle-{}.json", arch.name()));
    let stored = read_oracle_images(&path)?;
    if let Some(i) = stored.programs.iter().find(|i| Path::new(&i.asm).is_absolute() || !root.join(&i.asm).is_file()) {
        return Err(format!("{}: {}: its asm {} is not a file of the project", path.display(), i.name, i.asm));
    }
    // one boot per QEMU CPU, in the order the entries name them
    let mut cpus: Vec<Option<String>> = Vec::new();
    for i in stored.programs.iter().filter(|i| wanted(a, &i.name)) {
        if !cpus.contains(&i.qemu_cpu) {
            cpus.push(i.qemu_cpu.clone());
        }
    }
    let mut fresh: Vec<Option<OracleImage>> = vec![None; stored.programs.len()];
    for cpu in &cpus {
        let which: Vec<usize> = (0..stored.programs.len()).filter(|&k| wanted(a, &stored.programs[k].name) && &stored.programs[k].qemu_cpu == cpu).collect();
        let progs: Vec<AsmProg> = which.iter().map(|&k| AsmProg::read(&root.join(&stored.programs[k].asm))).collect::<Result<_, _>>()?;
        let vm = super::vm_with_cpu(arch, cpu.as_deref());
        eprintln!("{arch} oracle images: {} programs in one boot (-cpu {})", progs.len(), vm.config().cpu(arch));
        let loaded = load_all(&vm, &progs.iter().collect::<Vec<_>>(), "jit_disasm", arch)?;
        for (&k, l) in which.iter().zip(&loaded) {
            let old = &stored.programs[k];
            if !l.out.accepted {
                return Err(format!("{arch} oracle images {}: rejected ({}):\n{}", old.name, l.out.errno, l.out.log));
            }
            let tl = llvm_text::test_loader_text(arch, &l.out.jited_funcs)?.join("\n") + "\n";
            let new = OracleImage { func_lens: l.out.jited_funcs.iter().map(Vec::len).collect(), hex: hex(&l.out.jited_funcs.concat()), tl, ..old.clone() };
            fresh[k] = Some(new);
        }
    }
    let mut tally = Tally::default();
    let mut now = OracleImages { source: String::new(), programs: Vec::new() };
    for (old, new) in stored.programs.iter().zip(fresh) {
        let what = format!("{arch} oracle images/{}", old.name);
        let new = match new {
            Some(new) => {
                if a.check {
                    tally.compare(&what, &image_comparable(arch, old)?, &image_comparable(arch, &new)?);
                }
                new
            }
            None => old.clone(),
        };
        now.programs.push(new);
    }
    let vm = super::vm_with_cpu(arch, None);
    now.source = format!(
        "bpf-selftest record --set jit-forms: the programs of expected/jit_disasm/progs/ loaded into Linux {} under QEMU ({}; `@<cpu>` entries with that -cpu), on {}; hex/func_lens as BPF_OBJ_GET_INFO_BY_FD gave them, tl by libLLVM-19 as test_loader calls it",
        vm.config().release(arch).unwrap_or_default(),
        super::describe_vm(&vm, arch),
        crate::cli::record::today(),
    );
    if !a.check {
        std::fs::write(&path, super::to_json(&now, false)?).map_err(|e| format!("{}: {e}", path.display()))?;
        tally.written = now.programs.len();
    }
    tally.finish(&format!("jit-forms (oracle-{}.json)", arch.name()), a.check, t0.elapsed().as_secs_f64())
}

//! `bpf-selftest conform --objects`: every program of every object of 7.3's
//! selftests on Linux 7.3 (the vm backend) and through the model, side by
//! side.
//!
//! Each `tools/testing/selftests/bpf/progs/*.c` of the 7.3 tree is compiled
//! for each arch as the selftests' Makefile compiles it
//! ([`crate::import::clang::compile`]) and opened with libbpf's semantics
//! ([`crate::object`]); each main program is then loaded on its own, in the
//! object's order (libbpf's `bpf_object__load` order), with libbpf's
//! defaults ([`BpfObject::load_request`]: the object's maps and BTF, the
//! attach target the section names). One guest per arch takes all of an
//! arch's loads; the two arches run side by side.
//!
//! Per program the model's answer is compared with 7.3's: the verdict, the
//! errno of a rejection, `verified_insns` and the xlated program with what
//! differs from load to load masked ([`comparable_xlated`]). Programs 7.3
//! never saw (`BPF_PROG_LOAD` was not reached: libbpf refused, the object
//! loader cannot link them, or the guest cannot provide what they need) are
//! counted as not loaded, by reason.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;

use crate::backend::{self, Backend, LoadOutcome, LoadRequest, normalize};
use crate::import::cpp::KernelTree;
use crate::isa::Insn;
use crate::isa::op::{BPF_CALL, BPF_JMP, BPF_PSEUDO_KFUNC_CALL, BPF_PSEUDO_MAP_FD, BPF_PSEUDO_MAP_VALUE};
use crate::object::BpfObject;
use crate::prog_type::bpf_prog_type;
use crate::require::{self, Component};
use crate::target::Arch;

#[derive(Args, Debug, Clone, Default)]
pub struct ObjectsArgs {
    /// Compile every progs/*.c of the Linux 7.3 selftests as their Makefile
    /// does, load every program of every object on 7.3 under QEMU and
    /// through the model, and compare verdict, errno, verified_insns and
    /// the xlated program.
    #[arg(long)]
    pub objects: bool,
    /// With --objects: only every K-th object by sorted file name (the
    /// first, the (K+1)-th, ...).
    #[arg(long, value_name = "K")]
    pub sample: Option<usize>,
}

/// What one side did with a program.
#[derive(Clone, Debug)]
pub enum Side {
    /// `BPF_PROG_LOAD` ran (or, for the model, the model decided it): the
    /// outcome.
    Loaded(Box<LoadOutcome>),
    /// Nothing was loaded: why.
    NotLoaded(String),
}

/// One program of one object, on both sides.
#[derive(Clone, Debug)]
pub struct ProgRow {
    /// `object/program`.
    pub name: String,
    pub linux: Side,
    pub model: Side,
}

/// How the model's outcome compares with 7.3's for a program both loaded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    pub same_verdict: bool,
    pub same_errno: bool,
    pub same_verified_insns: bool,
    /// The xlated programs, masked, are the same.
    pub same_xlated: bool,
    /// The first masked xlated line that differs: (7.3's, the model's).
    pub first_xlated_difference: Option<(String, String)>,
}

/// libbpf's refusal of a program before `BPF_PROG_LOAD` (a kfunc or attach
/// target the kernel's BTF lacks, a failed CO-RE relocation): the loaders
/// put libbpf's warning in the log and no program reaches the kernel.
pub fn libbpf_refusal(out: &LoadOutcome) -> Option<&str> {
    if out.accepted {
        return None;
    }
    out.log.lines().next().and_then(|l| l.strip_prefix("libbpf: "))
}

/// The xlated program with what differs from load to load masked: a map
/// reference (`BPF_PSEUDO_MAP_FD`, `BPF_PSEUDO_MAP_VALUE`) names the map by
/// its index in the request (`map_ids` gives each index's id; the value
/// offset is kept); a kernel address (an `ld_imm64` of one, a per-CPU
/// variable's) and the random immediate of constant blinding are zeroed
/// (the positions `xlated`'s patterns leave open); a kfunc call's immediate
/// (a BTF id, or the function's address) is zeroed.
pub fn comparable_xlated(insns: &[Insn], map_ids: &[u32]) -> Vec<Insn> {
    let mut v = insns.to_vec();
    for k in super::xlated::varying_lines(insns) {
        let i = insns[k];
        if i.is_ld_imm64() && (i.src == BPF_PSEUDO_MAP_FD || i.src == BPF_PSEUDO_MAP_VALUE) {
            v[k].imm = normalize::map_index(map_ids, i.imm as u32).map_or(-1, |x| x as i32);
            continue;
        }
        v[k].imm = 0;
        if i.is_ld_imm64()
            && let Some(hi) = v.get_mut(k + 1)
        {
            hi.imm = 0;
        }
    }
    let mut k = 0;
    while k < v.len() {
        let wide = v[k].is_ld_imm64();
        if v[k].code == BPF_JMP | BPF_CALL && v[k].src == BPF_PSEUDO_KFUNC_CALL {
            v[k].imm = 0;
        }
        k += if wide { 2 } else { 1 };
    }
    v
}

/// Compares two outcomes of `BPF_PROG_LOAD` of the same program.
pub fn compare(linux: &LoadOutcome, model: &LoadOutcome) -> Comparison {
    let a = comparable_xlated(&linux.xlated_insns, &linux.map_ids);
    let b = comparable_xlated(&model.xlated_insns, &model.map_ids);
    let first_xlated_difference = (a != b).then(|| {
        let (ta, tb) = (crate::isa::disasm::xlated_dump(&a), crate::isa::disasm::xlated_dump(&b));
        let (la, lb): (Vec<&str>, Vec<&str>) = (ta.lines().collect(), tb.lines().collect());
        let k = la.iter().zip(&lb).position(|(x, y)| x != y).unwrap_or(la.len().min(lb.len()));
        let at = |l: &[&str]| l.get(k).map_or_else(|| format!("(ends after {} lines)", l.len()), |s| s.to_string());
        (at(&la), at(&lb))
    });
    Comparison {
        same_verdict: linux.accepted == model.accepted,
        same_errno: linux.errno == model.errno,
        same_verified_insns: linux.verified_insns == model.verified_insns,
        same_xlated: first_xlated_difference.is_none(),
        first_xlated_difference,
    }
}

/// A reason with what names one case made general, for grouping: quoted
/// names (a `'` not inside a word opens one) as `'*'`, numbers as `N`.
pub fn cause_of(reason: &str) -> String {
    let mut out = String::with_capacity(reason.len());
    let mut quoted = false;
    let mut prev = ' ';
    for c in reason.chars() {
        match c {
            '\'' if quoted => {
                out.push('\'');
                quoted = false;
            }
            '\'' if !prev.is_alphanumeric() => {
                out.push_str("'*");
                quoted = true;
            }
            _ if quoted => {}
            '0'..='9' if prev.is_ascii_digit() => {}
            '0'..='9' => out.push('N'),
            _ => out.push(c),
        }
        prev = c;
    }
    if quoted {
        out.push('\'');
    }
    out
}

/// One arch's run.
#[derive(Debug, Default)]
pub struct ArchRun {
    pub arch: Option<Arch>,
    /// Objects the sample took, and all of the tree's.
    pub objects: usize,
    pub all_objects: usize,
    pub compiled: usize,
    /// (object, why) of those that did not compile, and of those that did
    /// but did not open.
    pub compile_failed: Vec<(String, String)>,
    pub open_failed: Vec<(String, String)>,
    pub rows: Vec<ProgRow>,
    /// Loads put to the guest, and how many it answered (an outcome, not
    /// a transport or boot failure).
    pub guest_loads: usize,
    pub guest_answered: usize,
    pub seconds: f64,
}

/// What a run counts, per arch: the summary line's numbers and the
/// differences by cause.
#[derive(Debug, Default)]
pub struct Tally {
    pub programs: usize,
    pub loaded: usize,
    pub same_verdict: usize,
    pub same_insns: usize,
    pub same_xlated: usize,
    /// Programs the model decided, and of those 7.3 loaded too, how many
    /// differ in verdict.
    pub model_decided: usize,
    pub both_decided: usize,
    /// Programs 7.3 loaded that the model's libbpf refused (each also a
    /// verdict difference).
    pub model_refused: usize,
    /// cause -> (count, first example: program and reason).
    pub not_loaded: BTreeMap<String, (usize, String)>,
    pub undecided: BTreeMap<String, (usize, String)>,
    /// (program, 7.3's answer, the model's).
    pub verdict: Vec<(String, String, String)>,
    pub errno: Vec<(String, i32, i32)>,
    pub insns: Vec<(String, u32, u32)>,
    pub xlated: Vec<(String, String, String)>,
}

fn answer(o: &LoadOutcome) -> String {
    if o.accepted {
        return "accepted".into();
    }
    let last = o.log.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
    format!("rejected, errno {}: {}", o.errno, last.trim())
}

fn count(map: &mut BTreeMap<String, (usize, String)>, name: &str, reason: &str) {
    let e = map.entry(cause_of(reason)).or_insert_with(|| (0, format!("{name}: {reason}")));
    e.0 += 1;
}

/// Counts `rows`.
pub fn tally(rows: &[ProgRow]) -> Tally {
    let mut t = Tally { programs: rows.len(), ..Tally::default() };
    for r in rows {
        let model = match &r.model {
            Side::Loaded(m) if libbpf_refusal(m).is_none() => {
                t.model_decided += 1;
                Some(m)
            }
            _ => None,
        };
        let linux = match &r.linux {
            Side::NotLoaded(why) => {
                count(&mut t.not_loaded, &r.name, why);
                continue;
            }
            Side::Loaded(o) => match libbpf_refusal(o) {
                Some(why) => {
                    count(&mut t.not_loaded, &r.name, &format!("libbpf: {why}"));
                    continue;
                }
                None => o,
            },
        };
        t.loaded += 1;
        let m = match (&r.model, model) {
            (_, Some(m)) => m,
            (Side::Loaded(m), None) => {
                // the model's libbpf refused what 7.3's took
                t.model_refused += 1;
                t.verdict.push((r.name.clone(), answer(linux), answer(m)));
                continue;
            }
            (Side::NotLoaded(why), None) => {
                count(&mut t.undecided, &r.name, why);
                continue;
            }
        };
        t.both_decided += 1;
        let c = compare(linux, m);
        if !c.same_verdict {
            t.verdict.push((r.name.clone(), answer(linux), answer(m)));
            continue;
        }
        t.same_verdict += 1;
        if !c.same_errno {
            t.errno.push((r.name.clone(), linux.errno, m.errno));
        }
        if c.same_verified_insns {
            t.same_insns += 1;
        } else {
            t.insns.push((r.name.clone(), linux.verified_insns, m.verified_insns));
        }
        match c.first_xlated_difference {
            None => t.same_xlated += 1,
            Some((a, b)) => t.xlated.push((r.name.clone(), a, b)),
        }
    }
    t
}

/// The report of one arch: the summary line, then the differences by
/// cause (`show` entries of each list; all of them with `verbose`).
pub fn render(run: &ArchRun, sample: Option<usize>, show: usize, verbose: bool) -> String {
    let arch = run.arch.map_or_else(|| "?".to_string(), |a| a.to_string());
    let t = tally(&run.rows);
    let mut s = String::new();
    if let Some(k) = sample.filter(|&k| k > 1) {
        let _ = writeln!(s, "objects {arch}: sampled: every {k}-th object by sorted name, {} of {}", run.objects, run.all_objects);
    }
    let _ = writeln!(
        s,
        "objects {arch}: {} compiled, {} programs, {} loaded by 7.3, {} same verdict, {} same verified_insns, {} same xlated",
        run.compiled, t.programs, t.loaded, t.same_verdict, t.same_insns, t.same_xlated
    );
    let _ = writeln!(
        s,
        "objects {arch}: the model decided {} programs; of the {} loaded by 7.3 it decided {} ({} with another verdict), its libbpf refused {}, it left {} undecided ({:.0} s)",
        t.model_decided,
        t.loaded,
        t.both_decided,
        t.both_decided - t.same_verdict,
        t.model_refused,
        t.loaded - t.both_decided - t.model_refused,
        run.seconds
    );
    let limit = if verbose { usize::MAX } else { show };
    let list = |s: &mut String, title: &str, failed: &[(String, String)]| {
        if failed.is_empty() {
            return;
        }
        let _ = writeln!(s, "{title} ({}):", failed.len());
        for (name, why) in failed.iter().take(limit) {
            let _ = writeln!(s, "  {name}: {why}");
        }
        if failed.len() > limit {
            let _ = writeln!(s, "  ... {} more", failed.len() - limit);
        }
    };
    list(&mut s, "objects that did not compile", &run.compile_failed);
    list(&mut s, "objects that did not open", &run.open_failed);
    let causes = |s: &mut String, title: &str, m: &BTreeMap<String, (usize, String)>| {
        if m.is_empty() {
            return;
        }
        let total: usize = m.values().map(|(n, _)| n).sum();
        let _ = writeln!(s, "{title} ({total} programs, {} causes):", m.len());
        let mut v: Vec<_> = m.iter().collect();
        v.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(b.0)));
        for (cause, (n, example)) in v.iter().take(limit) {
            let _ = writeln!(s, "  {n:>5}  {cause}\n         e.g. {example}");
        }
        if v.len() > limit {
            let rest: usize = v[limit..].iter().map(|(_, (n, _))| n).sum();
            let _ = writeln!(s, "  {rest:>5}  ({} other causes)", v.len() - limit);
        }
    };
    causes(&mut s, "not loaded by 7.3, by reason", &t.not_loaded);
    causes(&mut s, "loaded by 7.3, left undecided by the model, by reason", &t.undecided);
    if !t.verdict.is_empty() {
        // the model accepting what 7.3 rejects first
        let mut v = t.verdict.clone();
        v.sort_by_key(|(_, a, _)| a == "accepted");
        let _ = writeln!(s, "verdict differs ({}):", v.len());
        for (name, a, b) in v.iter().take(limit) {
            let _ = writeln!(s, "  {name}\n    7.3:   {a}\n    model: {b}");
        }
        if v.len() > limit {
            let _ = writeln!(s, "  ... {} more", v.len() - limit);
        }
    }
    let errnos: Vec<(String, String)> = t.errno.iter().map(|(n, a, b)| (n.clone(), format!("7.3 errno {a}, model errno {b}"))).collect();
    list(&mut s, "same verdict, errno differs", &errnos);
    let insns: Vec<(String, String)> = t.insns.iter().map(|(n, a, b)| (n.clone(), format!("7.3 {a}, model {b}"))).collect();
    list(&mut s, "same verdict, verified_insns differs", &insns);
    let xlated: Vec<(String, String)> = t.xlated.iter().map(|(n, a, b)| (n.clone(), format!("7.3 '{a}', model '{b}'"))).collect();
    list(&mut s, "same verdict, xlated differs (first differing insn)", &xlated);
    s
}

/// The objects' sources: `progs/*.c` whose name contains one of `filters`
/// (all with none), sorted by name; with a sample of K, every K-th (the
/// first, the (K+1)-th, ...). Also the count of all they were taken from.
pub fn sources(progs: &Path, filters: &[String], sample: Option<usize>) -> Result<(Vec<PathBuf>, usize), String> {
    let rd = std::fs::read_dir(progs).map_err(|e| format!("{}: {e}", progs.display()))?;
    let wanted = |p: &Path| {
        let stem = p.file_stem().map(|s| s.to_string_lossy()).unwrap_or_default();
        filters.is_empty() || filters.iter().any(|f| stem.contains(f.as_str()))
    };
    let mut all: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "c") && wanted(p)).collect();
    all.sort();
    let n = all.len();
    let k = sample.unwrap_or(1).max(1);
    Ok((all.into_iter().step_by(k).collect(), n))
}

/// Why a program is not put to the guest: what it needs the loader does
/// not make (by its section, as libbpf's table names it, or its type).
fn guest_cannot(sec_name: &str, prog_type: Option<u32>) -> Option<&'static str> {
    let sec = sec_name.strip_prefix('?').unwrap_or(sec_name);
    let head = sec.split('/').next().unwrap_or(sec);
    if matches!(head, "struct_ops" | "struct_ops.s") || prog_type == Some(bpf_prog_type::STRUCT_OPS) {
        return Some("struct_ops: loaded against the BTF type of its struct_ops map, which the loader does not create");
    }
    if head == "freplace" || prog_type == Some(bpf_prog_type::EXT) {
        return Some("freplace: needs its target program loaded first (attach_prog_fd)");
    }
    None
}

/// How many loads go to the guest between progress lines.
const BATCH: usize = 256;

/// How many times a guest that did not come up is booted afresh before
/// the loads it was to do are given up.
const BOOT_RETRIES: usize = 2;

/// Compiles, opens and loads the objects of `files` for `arch` on a vm
/// backend of its own (`new_vm` makes one) and the model. A guest that
/// answers none of a batch before it answered anything (it did not boot)
/// is replaced by a fresh backend, [`BOOT_RETRIES`] times at most.
pub fn run_arch(tree: &KernelTree, files: &[PathBuf], all: usize, arch: Arch, new_vm: &(dyn Fn() -> Result<Box<dyn Backend>, String> + Sync)) -> ArchRun {
    let t0 = Instant::now();
    let model = backend::model::ModelBackend;
    let mut run = ArchRun { arch: Some(arch), objects: files.len(), all_objects: all, ..ArchRun::default() };
    // (row index, request) of the loads the guest is to do
    let mut loads: Vec<(usize, LoadRequest)> = Vec::new();
    for (n, src) in files.iter().enumerate() {
        if n % 100 == 0 {
            eprintln!("conform --objects: {arch}: compiling {}/{} ({:.0} s)", n, files.len(), t0.elapsed().as_secs_f64());
        }
        let name = src.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let o = match crate::import::clang::compile(src, tree, arch) {
            Ok(o) => o,
            Err(e) => {
                run.compile_failed.push((name, e));
                continue;
            }
        };
        run.compiled += 1;
        let obj = match BpfObject::open(&o) {
            Ok(obj) => obj,
            Err(e) => {
                run.open_failed.push((name, e.to_string()));
                continue;
            }
        };
        for p in obj.programs() {
            let row_name = format!("{name}/{}", p.name);
            let k = run.rows.len();
            if let Some(why) = guest_cannot(&p.sec_name, p.sec_def.map(|d| d.prog_type.0)) {
                run.rows.push(ProgRow { name: row_name, linux: Side::NotLoaded(why.into()), model: Side::NotLoaded(why.into()) });
                continue;
            }
            match obj.load_request(&p.name, arch) {
                Err(e) => {
                    let why = format!("object loader: {e}");
                    run.rows.push(ProgRow { name: row_name, linux: Side::NotLoaded(why.clone()), model: Side::NotLoaded(why) });
                }
                Ok(req) => {
                    run.rows.push(ProgRow { name: row_name, linux: Side::NotLoaded(String::new()), model: model_side(&model, &req) });
                    loads.push((k, req));
                }
            }
        }
    }
    eprintln!(
        "conform --objects: {arch}: {} objects compiled, {} programs, {} loads for 7.3 ({:.0} s)",
        run.compiled,
        run.rows.len(),
        loads.len(),
        t0.elapsed().as_secs_f64()
    );
    let mut vm = new_vm();
    let mut retries = 0;
    for (b, chunk) in loads.chunks(BATCH).enumerate() {
        let reqs: Vec<LoadRequest> = chunk.iter().map(|(_, r)| r.clone()).collect();
        let mut outs = match &vm {
            Ok(be) => be.load_batch(&reqs),
            Err(e) => reqs.iter().map(|_| Err(backend::Unavailable(e.clone()))).collect(),
        };
        while run.guest_answered == 0 && retries < BOOT_RETRIES && outs.iter().all(Result::is_err) {
            retries += 1;
            let why = outs.first().and_then(|o| o.as_ref().err()).map_or_else(String::new, |u| u.0.clone());
            eprintln!("conform --objects: {arch}: the guest answered none of a batch ({why}); booting a fresh one");
            vm = new_vm();
            if let Ok(be) = &vm {
                outs = be.load_batch(&reqs);
            }
        }
        run.guest_loads += chunk.len();
        for ((k, _), out) in chunk.iter().zip(outs) {
            run.rows[*k].linux = match out {
                Ok(o) => {
                    run.guest_answered += 1;
                    Side::Loaded(Box::new(o))
                }
                Err(u) => Side::NotLoaded(u.0),
            };
        }
        eprintln!("conform --objects: {arch}: 7.3 loaded {}/{} ({:.0} s)", (b * BATCH + chunk.len()), loads.len(), t0.elapsed().as_secs_f64());
    }
    run.seconds = t0.elapsed().as_secs_f64();
    run
}

/// The model's side of a program: its outcome, or why it has none (a phase
/// not modelled, or a fault of the model, caught so the sweep goes on).
fn model_side(model: &backend::model::ModelBackend, req: &LoadRequest) -> Side {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| model.load(req)));
    match r {
        Ok(Ok(o)) => Side::Loaded(Box::new(o)),
        Ok(Err(u)) => Side::NotLoaded(u.0),
        Err(p) => {
            let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
            Side::NotLoaded(format!("model panicked: {msg}"))
        }
    }
}

/// `conform --objects`: `arches` comma-separated; the arches side by side.
pub fn run(arches: &str, a: &ObjectsArgs, filters: &[String], tree: Option<&Path>, show: usize, verbose: bool) -> Result<(), String> {
    let t0 = Instant::now();
    let arches: Vec<Arch> = arches.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::parse).collect::<Result<_, _>>()?;
    if a.sample == Some(0) {
        return Err("--sample 0: K must be at least 1".into());
    }
    if crate::import::clang::clang_program().is_none() {
        let line = require::missing(Component::Clang, "conform --objects: compiling the selftests' objects needs clang-19")?;
        println!("{line}");
        return Ok(());
    }
    let tree = match tree {
        Some(t) => KernelTree::new(t),
        None => match crate::import::cpp::source_tree() {
            Some(t) => t,
            None => {
                let line = require::missing(
                    Component::Source,
                    "conform --objects: no Linux 7.3 source (set BPF_SELFTEST_KERNEL_SRC, or run scripts/setup-vm.sh --source)",
                )?;
                println!("{line}");
                return Ok(());
            }
        },
    };
    let vm = backend::by_name("vm")?;
    let new_vm = || backend::by_name("vm");
    for &arch in &arches {
        if let Err(u) = vm.probe(arch) {
            let line = require::missing(Component::Vm, &format!("conform --objects: {arch}: {}", u.0))?;
            println!("{line}");
            return Ok(());
        }
    }
    let (files, all) = sources(&tree.progs(), filters, a.sample)?;
    let runs: Vec<ArchRun> = std::thread::scope(|s| {
        let (tree, files, new_vm) = (&tree, &files, &new_vm);
        let handles: Vec<_> = arches.iter().map(|&arch| s.spawn(move || run_arch(tree, files, all, arch, new_vm))).collect();
        handles.into_iter().map(|h| h.join().map_err(|_| "conform --objects: an arch's run panicked".to_string())).collect::<Result<_, _>>()
    })?;
    for r in &runs {
        print!("{}", render(r, a.sample, show, verbose));
        println!();
    }
    println!("conform --objects: {} arches in {:.0} s", runs.len(), t0.elapsed().as_secs_f64());
    // a guest that answered nothing (it did not boot, or died at once)
    // leaves nothing compared: that is an error, differences are not
    let silent: Vec<String> = runs
        .iter()
        .filter(|r| r.guest_loads > 0 && r.guest_answered == 0)
        .map(|r| format!("{}: 7.3 answered none of {} loads", r.arch.map_or_else(|| "?".to_string(), |a| a.to_string()), r.guest_loads))
        .collect();
    if !silent.is_empty() {
        return Err(format!("conform --objects: {}", silent.join("; ")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::op::*;

    fn outcome(accepted: bool, errno: i32, verified_insns: u32, insns: Vec<Insn>, map_ids: Vec<u32>) -> LoadOutcome {
        LoadOutcome { accepted, errno, verified_insns, xlated_insns: insns, map_ids, ..LoadOutcome::default() }
    }

    /// The same program loaded twice: maps created with other ids, kernel
    /// addresses elsewhere, a kfunc's immediate another; the rest the same.
    #[test]
    fn what_moves_between_loads_is_masked() {
        let prog = |map_id: u32, addr: u64, kfunc: i32, off: i32| {
            vec![
                Insn::new(BPF_LD | BPF_IMM | BPF_DW, 1, BPF_PSEUDO_MAP_VALUE, 0, map_id as i32),
                Insn::new(0, 0, 0, 0, off),
                Insn::new(BPF_LD | BPF_IMM | BPF_DW, 2, 0, 0, addr as u32 as i32),
                Insn::new(0, 0, 0, 0, (addr >> 32) as u32 as i32),
                Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, kfunc),
                Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, 1),
                Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
                Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
            ]
        };
        let a = outcome(true, 0, 8, prog(17, 0xffff_ffff_8200_1000, 1234, 8), vec![5, 17]);
        let b = outcome(true, 0, 8, prog(2, 0xffff_ffff_8300_2000, 99, 8), vec![1, 2]);
        assert_eq!(
            compare(&a, &b),
            Comparison { same_verdict: true, same_errno: true, same_verified_insns: true, same_xlated: true, first_xlated_difference: None }
        );
        // another map (index 0, not 1), another value offset, another helper: each a difference
        // (test_loader shows a map value as `(off << 32) | map`)
        for (other, line) in [(prog(1, 0xffff_ffff_8300_2000, 99, 8), "0: r1 = 0x800000000"), (prog(2, 0xffff_ffff_8300_2000, 99, 16), "0: r1 = 0x1000000001")]
        {
            let c = compare(&a, &outcome(true, 0, 8, other, vec![1, 2]));
            assert!(!c.same_xlated);
            let (_, m) = c.first_xlated_difference.unwrap();
            assert!(m.contains(line), "{m}");
        }
        let mut helper = prog(2, 0xffff_ffff_8300_2000, 99, 8);
        helper[5].imm = 2;
        let c = compare(&a, &outcome(true, 0, 8, helper, vec![1, 2]));
        assert!(!c.same_xlated && c.first_xlated_difference.unwrap().0.starts_with("5: "));
        // a constant that is no kernel address is kept
        let c = compare(&a, &outcome(true, 0, 8, prog(2, 0x1234, 99, 8), vec![1, 2]));
        assert!(!c.same_xlated);
        // a longer program: the difference is where the shorter ends
        let mut longer = prog(2, 0xffff_ffff_8300_2000, 99, 8);
        longer.push(Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
        let (x, _) = compare(&a, &outcome(true, 0, 8, longer, vec![1, 2])).first_xlated_difference.unwrap();
        assert_eq!(x, "(ends after 6 lines)");
    }

    /// 7.3's x86_64 xlated program of `call bpf_get_smp_processor_id;
    /// exit` as recorded (the per-CPU address of `cpu_number` inlined) is
    /// the same as itself with that address moved, and not the same as a
    /// program that loads another constant there.
    #[test]
    fn recorded_per_cpu_address_is_masked() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../expected/linux-7.3/x86_64/jited/smp_processor_id_x86_64.txt");
        let g = crate::golden::Golden::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let a = outcome(true, 0, g.verified_insns, g.xlated_insns.clone(), Vec::new());
        let mut moved = g.xlated_insns.clone();
        moved[0].imm = moved[0].imm.wrapping_add(0x40);
        assert!(compare(&a, &outcome(true, 0, g.verified_insns, moved.clone(), Vec::new())).same_xlated);
        moved[2].off += 4;
        assert!(!compare(&a, &outcome(true, 0, g.verified_insns, moved, Vec::new())).same_xlated);
    }

    #[test]
    fn counts_and_causes() {
        let ok = |n| Side::Loaded(Box::new(outcome(true, 0, n, vec![Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)], Vec::new())));
        let rejected = |errno| Side::Loaded(Box::new(LoadOutcome { accepted: false, errno, log: "R0 !read_ok\n".into(), ..LoadOutcome::default() }));
        let refused = |name: &str| {
            Side::Loaded(Box::new(LoadOutcome {
                accepted: false,
                errno: 3,
                log: format!("libbpf: extern (func ksym) '{name}': not found in kernel or module BTFs\n"),
                ..LoadOutcome::default()
            }))
        };
        let row = |name: &str, linux, model| ProgRow { name: name.into(), linux, model };
        let rows = vec![
            row("a/same", ok(3), ok(3)),
            row("a/insns", ok(3), ok(4)),
            row("a/unsound", rejected(13), ok(3)),
            row("a/errno", rejected(13), rejected(22)),
            row("b/testmod1", refused("bpf_kfunc_call_test1"), refused("bpf_kfunc_call_test1")),
            row("b/testmod2", refused("bpf_kfunc_call_test2"), Side::NotLoaded("model: x".into())),
            row("b/undecided", ok(3), Side::NotLoaded("model: kfunc bpf_foo has no recorded 7.3 BTF id for x86_64".into())),
            row("b/ops", Side::NotLoaded("struct_ops: x".into()), Side::NotLoaded("struct_ops: x".into())),
        ];
        let t = tally(&rows);
        assert_eq!((t.programs, t.loaded, t.same_verdict, t.same_insns, t.same_xlated), (8, 5, 3, 2, 3));
        assert_eq!((t.model_decided, t.both_decided, t.model_refused), (4, 4, 0));
        assert_eq!(t.verdict.len(), 1);
        assert_eq!(t.verdict[0].0, "a/unsound");
        assert_eq!(t.errno, vec![("a/errno".to_string(), 13, 22)]);
        assert_eq!(t.insns, vec![("a/insns".to_string(), 3, 4)]);
        let testmod = "libbpf: extern (func ksym) '*': not found in kernel or module BTFs";
        assert_eq!(t.not_loaded[testmod].0, 2);
        assert_eq!(t.not_loaded["struct_ops: x"].0, 1);
        assert_eq!(t.undecided["model: kfunc bpf_foo has no recorded N.N BTF id for xN_N"].0, 1);
        let run = ArchRun { arch: Some(Arch::X86_64), objects: 2, all_objects: 4, compiled: 2, rows, ..ArchRun::default() };
        let s = render(&run, Some(2), 20, false);
        assert!(s.contains("objects x86_64: sampled: every 2-th object by sorted name, 2 of 4\n"), "{s}");
        assert!(s.contains("objects x86_64: 2 compiled, 8 programs, 5 loaded by 7.3, 3 same verdict, 2 same verified_insns, 3 same xlated\n"), "{s}");
        assert!(s.contains("      2  libbpf: extern (func ksym) '*': not found in kernel or module BTFs\n"), "{s}");
        assert!(s.contains("  a/unsound\n    7.3:   rejected, errno 13: R0 !read_ok\n    model: accepted\n"), "{s}");
    }

    #[test]
    fn samples_every_kth_by_name() {
        let dir = std::env::temp_dir().join(format!("conform-objects-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for n in ["c.c", "a.c", "b.c", "d.c", "e.h"] {
            std::fs::write(dir.join(n), "").unwrap();
        }
        let names = |f: &[String], k| sources(&dir, f, k).unwrap().0.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect::<Vec<_>>();
        assert_eq!(names(&[], None), ["a.c", "b.c", "c.c", "d.c"]);
        assert_eq!(names(&[], Some(3)), ["a.c", "d.c"]);
        assert_eq!(sources(&dir, &[], Some(3)).unwrap().1, 4);
        assert_eq!(names(&["b".into(), "d".into()], None), ["b.c", "d.c"]);
        assert_eq!(cause_of("which of bpf_sk_storage_get's prototypes 7.3 gives"), "which of bpf_sk_storage_get's prototypes N.N gives");
        assert_eq!(cause_of("prog 'a1': map 'b': 12 x"), "prog '*': map '*': N x");
        assert!(guest_cannot("?struct_ops/test_1", None).is_some() && guest_cannot("freplace/f", None).is_some());
        assert_eq!(guest_cannot("fentry/bpf_fentry_test1", Some(bpf_prog_type::TRACING)), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
